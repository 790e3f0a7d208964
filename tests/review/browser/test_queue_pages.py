"""Every queued card is reachable: pages with an exact count that is the menu's badge, a done page
that never says the queue is empty, selectors that go when their cards are decided."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from engine.write.pipeline import EpisodicItem, add_episodic_batch
from memories.models import Note, Pair

pytestmark = pytest.mark.browser


def _keys_on_every_page(page, url: str) -> list[str]:
    keys: list[str] = []
    page.goto(url)
    while True:
        keys += [c.get_attribute("data-key") or "" for c in page.locator("#queue .card").all()]
        following = page.locator(".pager a:has-text('next')")
        if not following.count():
            return keys
        following.click()
        page.wait_for_load_state("load")


def test_every_card_the_badge_counts_is_on_a_page(logged_in, live_server, alice, make_note):
    page = logged_in
    old = make_note(alice, "Alice keeps a list of the birds she sees.")
    # More than the 200 cards the queue once stopped at (it said "200 left" under a badge of 207).
    items = [EpisodicItem(f"Alice saw bird number {i} in the park.") for i in range(207)]
    birds = add_episodic_batch(alice, items)
    Pair.objects.bulk_create(Pair(kind=Pair.MERGE, older=old, newer=n) for n in birds)
    merges = {str(pk) for pk in Pair.objects.of_kind(Pair.MERGE).values_list("pk", flat=True)}
    assert len(merges) == 207
    conflicts = set()
    for i in range(22):
        a, b = make_note(alice, f"Alice has {i} cats."), make_note(alice, f"Alice has {i + 100} cats.")
        conflicts.add(str(Pair.objects.create(kind=Pair.CONFLICT, older=a, newer=b, reason="r").pk))
    for queue, expected in (("merges", merges), ("conflicts", conflicts)):
        page.goto(f"{live_server.url}/review/queues/{queue}/")
        badge = page.locator(f"#count-{queue}")
        expect(badge).to_have_text(str(len(expected)))
        expect(page.locator("#left")).to_have_text(str(len(expected)))
        keys = _keys_on_every_page(page, f"{live_server.url}/review/queues/{queue}/")
        assert len(keys) == len(set(keys)) and set(keys) == expected, queue


def test_when_a_page_is_done_the_next_cards_are_one_click_away(logged_in, live_server, alice, make_note):
    page = logged_in
    for i in range(23):
        make_note(alice, f"Alice said something vague about item {i}.", low_quality=True, low_quality_reasons=["vague"])
    page.goto(f"{live_server.url}/review/queues/quality/")
    expect(page.locator("#queue .card")).to_have_count(20)
    page.check("#select-all")
    page.click("#bulk-form button[value=keep]")
    page.locator("#bulk-dialog button.primary").click()
    expect(page.locator("#bulk-result")).to_contain_text("Kept 20 notes")
    expect(page.locator("#count-quality")).to_have_text("3")
    expect(page.locator("#left")).to_have_text("3")
    expect(page.locator("#queue-empty")).to_be_hidden()
    page.click("#page-done a:has-text('Show the next cards')")
    expect(page.locator("#queue .card")).to_have_count(3)
    expect(page.locator("#left")).to_have_text("3")


def test_select_buttons_count_what_is_left_and_go_with_their_last_card(logged_in, live_server, alice, make_note):
    page = logged_in
    vague = [
        make_note(alice, f"Something about the thing number {i}.", low_quality=True, low_quality_reasons=["vague"])
        for i in range(2)
    ]
    cut = make_note(alice, "And then we went over to the", low_quality=True, low_quality_reasons=["fragment"])
    page.goto(f"{live_server.url}/review/queues/quality/")
    chips = page.locator("#selectors .chip")
    expect(chips.filter(has_text="fragment")).to_have_text("fragment · 1")
    page.locator(f"#quality-{cut.pk} button:has-text('Retire')").click()
    expect(page.locator(f"#quality-{cut.pk} [role=status]")).to_contain_text("Retired")
    expect(chips.filter(has_text="fragment")).to_be_hidden()
    for note in vague:
        page.locator(f"#quality-{note.pk} button:has-text('Keep')").click()
        expect(page.locator(f"#quality-{note.pk} [role=status]")).to_contain_text("Kept")
    expect(page.locator("#selectors")).to_be_hidden()
    expect(page.locator("#queue-empty")).to_be_visible()
    assert Note.objects.filter(low_quality=True, is_active=True).count() == 0
