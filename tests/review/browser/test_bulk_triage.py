"""Triage in a real browser: bulk actions through their preview, keyboard-only queues, conflicts, the
same-fact text, browser paging."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import Note, Pair

pytestmark = pytest.mark.browser


def _low_quality(make_note, agent, n: int) -> list[Note]:
    return [
        make_note(
            agent,
            f"Alice said something vague about item number {i} once.",
            low_quality=True,
            low_quality_reasons=["too_vague"],
        )
        for i in range(n)
    ]


def test_bulk_retire_20_low_quality_notes_in_one_action_and_undo_it(logged_in, live_server, alice, make_note):
    page = logged_in
    notes = _low_quality(make_note, alice, 20)
    page.goto(f"{live_server.url}/review/queues/quality/")
    expect(page.locator("#left")).to_have_text("20")
    page.check("#select-all")
    expect(page.locator("#selected")).to_have_text("20")
    page.click("#bulk-form button[value=retire]")
    # First what it will do, card by card; nothing is written until the confirm.
    preview = page.locator("#bulk-dialog")
    expect(preview.locator("h2")).to_have_text("Retire: 20 notes?")
    expect(preview.locator("ol.will li")).to_have_count(20)
    assert Note.objects.filter(pk__in=[n.pk for n in notes], is_active=True).count() == 20
    preview.locator("button:has-text('Retire: 20 notes')").click()
    expect(page.locator("#bulk-result")).to_contain_text("Retired 20 notes")
    expect(preview).to_be_hidden()
    # The run folds its cards away: the bar says what happened, the empty state shows.
    expect(page.locator("#queue .card:visible")).to_have_count(0)
    expect(page.locator("#left")).to_have_text("0")
    expect(page.locator("#queue-empty")).to_be_visible()
    assert Note.objects.filter(pk__in=[n.pk for n in notes], is_active=True).count() == 0
    page.click("#bulk-result button:has-text('Undo all 20')")
    expect(page.locator("#bulk-result")).to_contain_text("Undone: 20 notes")
    expect(page.locator("#queue .card:not(.done)")).to_have_count(20)
    expect(page.locator("#left")).to_have_text("20")
    assert Note.objects.filter(pk__in=[n.pk for n in notes], is_active=True).count() == 20


def test_clear_a_queue_by_keyboard_alone(logged_in, live_server, alice, make_note):
    page = logged_in
    notes = _low_quality(make_note, alice, 6)
    page.goto(f"{live_server.url}/review/queues/quality/")
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()
    page.keyboard.press("j")
    for i in range(3):  # keep three, one key each; the next card becomes current
        page.keyboard.press("e")
        expect(page.locator("#queue .card.done")).to_have_count(i + 1)
        expect(page.locator("#queue .card.current:not(.done)")).to_have_count(1)
    page.keyboard.press("u")  # undo the last keep
    expect(page.locator("#queue .card.done")).to_have_count(2)
    page.keyboard.press("*")  # select every card left; Shift+R shows what retiring them does, Enter runs it
    page.keyboard.press("Shift+R")
    expect(page.locator("#bulk-dialog h2")).to_have_text("Retire: 4 notes?")
    page.keyboard.press("Enter")
    expect(page.locator("#queue-empty")).to_be_visible()
    expect(page.locator("#left")).to_have_text("0")
    states = {n.pk: (n.is_active, n.low_quality) for n in Note.objects.filter(pk__in=[n.pk for n in notes])}
    assert sorted(states.values()) == [(False, True)] * 4 + [(True, False)] * 2


def test_resolving_a_conflict_takes_the_note_out_of_every_queue(logged_in, live_server, alice, make_note):
    page = logged_in
    a = make_note(
        alice, "Alice's office is on the third floor.", low_quality=True, low_quality_reasons=["pending_conflict"]
    )
    b = make_note(
        alice, "Alice's office is on the fifth floor.", low_quality=True, low_quality_reasons=["pending_conflict"]
    )
    pair = Pair.objects.create(kind=Pair.CONFLICT, older=b, newer=a, reason="Which floor is the office on?")
    page.goto(f"{live_server.url}/review/queues/quality/")
    expect(page.locator(f"#quality-{a.pk}")).to_have_count(0)  # one place per note: Conflicts
    expect(page.locator("main")).to_contain_text("2 flagged notes are part of an open conflict")
    page.click("main a:has-text('Conflicts')")
    card = page.locator(f"#conflict-{pair.pk}")
    expect(card.locator("mark.only-a")).to_contain_text("third")
    expect(card.locator("mark.only-b")).to_contain_text("fifth")
    card.locator("button:has-text('Newer replaces older')").click()
    expect(card.locator("[role=status]")).to_contain_text("kept “Alice's office is on the fifth floor.”")
    expect(page.locator("#count-conflicts")).to_have_text("0")
    expect(page.locator("#count-quality")).to_have_text("0")
    a.refresh_from_db()
    b.refresh_from_db()
    assert not a.is_active
    assert (b.is_active, b.low_quality, b.low_quality_reasons) == (True, False, [])
    pair.refresh_from_db()
    assert (pair.status, pair.resolution, pair.superseded_id) == (Pair.RESOLVED, "replace", a.pk)
    assert not Note.objects.filter(pk=b.pk).waiting(Pair.CONFLICT).exists()
    for queue in ("quality", "conflicts", "merges"):
        page.goto(f"{live_server.url}/review/queues/{queue}/")
        expect(page.locator("#queue-empty")).to_be_visible()
        assert str(b.pk) not in page.locator("#queue").inner_html()


def test_the_same_fact_text_on_the_card_is_what_it_writes(logged_in, live_server, alice, make_note):
    page = logged_in
    old = make_note(alice, "Alice drinks green tea every morning.", sources=["chat-1"])
    new = make_note(alice, "Alice drinks green tea every morning. She takes it without sugar.", sources=["chat-2"])
    pair = Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.83)
    page.goto(f"{live_server.url}/review/queues/merges/")
    card = page.locator(f"#merge-{pair.pk}")
    expect(card).to_contain_text("similarity 0.83")
    expect(card).to_contain_text("chat-1")
    expect(card.locator("mark.only-b")).to_contain_text("without sugar")
    preview = card.locator("[data-preview]").input_value()  # the merged text, editable before deciding
    card.locator("button:has-text('Same fact')").click()
    expect(card.locator("[role=status]")).to_contain_text("Same fact: merged into the older note")
    old.refresh_from_db()
    assert old.content == preview == "Alice drinks green tea every morning. She takes it without sugar."
    assert not Note.objects.get(pk=new.pk).is_active


def test_browser_pages_number_on_and_start_at_the_top(logged_in, live_server, alice, make_note):
    page = logged_in
    for i in range(25):
        make_note(alice, f"Alice remembers numbered fact {i:02d} about her garden and the weather.")
    page.set_viewport_size({"width": 390, "height": 700})
    page.goto(f"{live_server.url}/review/agents/alice/notes/")
    page.keyboard.press("Tab")  # the first stop is the skip link
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("window.scrollY") > 0
    page.click("text=older →")
    expect(page.locator("#results")).to_contain_text("page 2 of 2")
    assert page.locator("#results ol.notes").get_attribute("start") == "21"
    page.wait_for_function("window.scrollY === 0")
