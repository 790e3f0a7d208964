"""Keys and focus: a decision key acts on the current card, as the help says; an undone card is
current again; the merged-text box hands the keys back on Esc."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import Note, Pair

pytestmark = pytest.mark.browser


def _pairs(make_note, agent, n: int) -> list[Pair]:
    """``n`` notes waiting in Merges, each beside the older note it resembles."""
    pairs = []
    for i in range(n):
        old = make_note(agent, f"Alice waters plant number {i} on Sundays.")
        new = make_note(agent, f"Alice waters plant number {i} on Sundays before breakfast.")
        pairs.append(Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.9))
    return pairs


def _current(page) -> str:
    return page.locator("#queue .card.current").get_attribute("id") or ""


def test_the_help_says_what_the_keys_do_and_a_key_acts_on_the_current_card_only(
    logged_in, live_server, alice, make_note
):
    page = logged_in
    pairs = _pairs(make_note, alice, 3)
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.keyboard.press("?")
    help_text = page.locator("#help").inner_text()
    assert "Both true — the current card" in help_text and "selected cards" not in help_text.split("Shift")[0]
    page.keyboard.press("Escape")
    # Select the first two with x, then move to the third and press b: only the third is decided.
    page.keyboard.press("j")
    page.keyboard.press("x")
    page.keyboard.press("j")
    page.keyboard.press("x")
    expect(page.locator("#selected")).to_have_text("2")
    page.keyboard.press("j")
    third = _current(page)
    asked: list[str] = []
    page.on("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.keyboard.press("b")
    expect(page.locator(f"#{third} [role=status]")).to_contain_text("Both true")
    assert asked == [] and not page.locator("#bulk-dialog").is_visible()
    pending = set(Pair.objects.open().filter(pk__in=[p.pk for p in pairs]).values_list("pk", flat=True))
    assert {f"merge-{pk}" for pk in pending} == {f"merge-{p.pk}" for p in pairs} - {third}
    expect(page.locator("#selected")).to_have_text("2")  # the selection is left as it was


def test_after_undo_the_restored_card_is_current_and_the_next_key_acts_on_it(logged_in, live_server, alice, make_note):
    page = logged_in
    _pairs(make_note, alice, 3)
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.keyboard.press("j")
    first = _current(page)
    page.keyboard.press("b")
    expect(page.locator(f"#{first}.done")).to_have_count(1)
    expect(page.locator("#queue .card.current")).not_to_have_id(first)
    page.keyboard.press("u")
    expect(page.locator(f"#{first}:not(.done)")).to_have_count(1)
    expect(page.locator(f"#{first}")).to_have_class("card pair current")
    page.keyboard.press("d")  # not related: acts on the restored card, not on the one after it
    expect(page.locator(f"#{first} [role=status]")).to_contain_text("Not related")
    expect(page.locator("#queue .card.done")).to_have_count(1)


def test_keys_work_again_after_the_merged_text_box(logged_in, live_server, alice, make_note):
    page = logged_in
    pairs = _pairs(make_note, alice, 2)
    page.goto(f"{live_server.url}/review/queues/merges/")
    card = page.locator(f"#merge-{pairs[1].pk}")  # the newest first: this card is the first
    card.locator("summary").click()
    box = card.locator("[data-preview]")
    box.click()
    box.press("End")
    page.keyboard.type(" Always")  # letters go into the box, not to the keys (s, b, d …)
    expect(box).to_have_value("Alice waters plant number 1 on Sundays before breakfast. Always")
    expect(page.locator("#queue .card.done")).to_have_count(0)
    page.keyboard.press("Escape")
    expect(card).to_have_class("card pair current")
    page.keyboard.press("j")
    expect(page.locator("#queue .card.current")).to_have_id(f"merge-{pairs[0].pk}")
    page.keyboard.press("k")
    box.click()
    page.keyboard.press("Control+Enter")  # decides "same fact" with the edited text
    expect(card.locator("[role=status]")).to_contain_text("Same fact")
    kept = Note.objects.get(pk=pairs[1].older_id)
    assert kept.content == "Alice waters plant number 1 on Sundays before breakfast. Always"
