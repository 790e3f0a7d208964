"""Deciding queue cards in a real browser: an edited merge, conflicts in bulk, the done state, Back."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import Note, Pair

pytestmark = pytest.mark.browser

NEGATION = "[write] one text negates what the other states"
NUMBERS = "[write] different numbers or dates: 3 / 5"


def _conflict(make_note, agent, a: str, b: str, reason: str, **a_fields) -> Pair:
    """A conflict whose ``newer`` is ``a``, written first (the card orders the two by date)."""
    note_a = make_note(agent, a, **a_fields)
    note_b = make_note(agent, b)
    return Pair.objects.create(kind=Pair.CONFLICT, older=note_b, newer=note_a, reason=reason)


def test_same_fact_writes_the_text_the_reviewer_edited_and_keeps_the_older_notes_category(
    logged_in, live_server, alice, make_note
):
    page = logged_in
    pair = _conflict(
        make_note,
        alice,
        "Ana no longer works at Farfetch; she joined a bakery in Porto.",
        "Ana works at Farfetch as a data engineer.",
        NEGATION,
        category="Project",
    )
    page.goto(f"{live_server.url}/review/queues/conflicts/")
    card = page.locator(f"#conflict-{pair.pk}")
    card.locator("summary:has-text('“Same fact” writes')").click()
    box = card.locator("textarea[name=text]")
    expect(box).to_be_visible()
    assert "Farfetch" in box.input_value()  # starts as the preview
    box.fill("Ana used to work at Farfetch as a data engineer; she now works at a bakery in Porto.")
    card.locator("button:has-text('Same fact')").click()
    expect(card.locator("[role=status]")).to_contain_text("Same fact: merged into the older note")
    a = Note.objects.get(pk=pair.newer_id)  # the older of the two by date
    assert a.content == "Ana used to work at Farfetch as a data engineer; she now works at a bakery in Porto."
    assert a.category == "Project"
    assert not Note.objects.get(pk=pair.older_id).is_active


def test_false_alarms_are_kept_in_one_action_after_their_preview_and_undone_in_one(
    logged_in, live_server, alice, make_note
):
    page = logged_in
    negations = [
        _conflict(make_note, alice, f"Sam enjoys soda number {i}.", f"Sam does not give up on goal {i}.", NEGATION)
        for i in range(3)
    ]
    numbers = _conflict(make_note, alice, "Alice has 3 cats at home.", "Alice has 5 cats at home.", NUMBERS)
    page.goto(f"{live_server.url}/review/queues/conflicts/")
    expect(page.locator("#left")).to_have_text("4")
    for pair in negations:
        page.locator(f"#conflict-{pair.pk} .pick-card").check()
    expect(page.locator("#selected")).to_have_text("3")
    page.click("#bulk-form button[value=both]")
    preview = page.locator("#bulk-dialog")
    expect(preview.locator("h2")).to_have_text("Both true: 3 conflicts?")
    expect(preview.locator("ol.will li")).to_have_count(3)
    expect(preview.locator("ol.will")).to_contain_text("Sam does not give up on goal 1.")
    preview.locator("button.primary").click()
    expect(page.locator("#bulk-result")).to_contain_text("Both true: kept both notes of 3 conflicts")
    expect(page.locator("#left")).to_have_text("1")
    statuses = {p.pk: p.status for p in Pair.objects.all()}
    assert [statuses[p.pk] for p in negations] == [Pair.RESOLVED] * 3
    assert statuses[numbers.pk] == Pair.OPEN
    page.click("#bulk-result button:has-text('Undo all 3')")
    expect(page.locator("#bulk-result")).to_contain_text("Undone: 3 conflicts back in the queue")
    expect(page.locator("#left")).to_have_text("4")
    assert Pair.objects.open().of_kind(Pair.CONFLICT).count() == 4


def test_a_finished_bulk_run_is_compact_with_the_empty_state_near_the_top(logged_in, live_server, alice, make_note):
    page = logged_in
    page.set_viewport_size({"width": 1280, "height": 900})
    for i in range(42):
        make_note(
            alice,
            f"Alice said something vague about item number {i} once.",
            low_quality=True,
            low_quality_reasons=["too_vague"],
        )
    page.goto(f"{live_server.url}/review/queues/quality/")
    expect(page.locator("#left")).to_have_text("42")  # every card, though a page shows 20
    page.check("#select-all")
    page.click("#bulk-form button[value=retire]")
    page.locator("#bulk-dialog button.primary").click()
    expect(page.locator("#bulk-result")).to_contain_text("Retired 20 notes")
    # The page is done but the queue is not: it says so, near the top, and never "empty".
    expect(page.locator("#left")).to_have_text("22")
    expect(page.locator("#page-done")).to_be_visible()
    expect(page.locator("#page-done")).to_contain_text("22 more wait")
    expect(page.locator("#queue-empty")).to_be_hidden()
    expect(page.locator("#queue .card:visible")).to_have_count(0)
    top = page.locator("#page-done").bounding_box()
    assert top is not None and top["y"] < 900, top
    page.click("#bulk-result button:has-text('Undo all 20')")
    expect(page.locator("#queue .card:visible:not(.done)")).to_have_count(20)
    expect(page.locator("#page-done")).to_be_hidden()
    expect(page.locator("#left")).to_have_text("42")


def test_back_never_shows_a_decided_card_as_open(logged_in, live_server, alice, make_note):
    page = logged_in
    notes = [
        make_note(alice, f"Alice mentioned the thing number {i}.", low_quality=True, low_quality_reasons=["vague"])
        for i in range(2)
    ]
    page.goto(f"{live_server.url}/review/queues/quality/")
    card = page.locator(f"#quality-{notes[0].pk}")
    card.locator("button:has-text('Keep')").click()
    expect(card).to_contain_text("Kept")
    page.click("header nav a:has-text('Dashboard')")
    page.wait_for_url(f"{live_server.url}/review/")
    page.go_back()
    page.wait_for_url(f"{live_server.url}/review/queues/quality/")
    expect(page.locator("#left")).to_have_text("1")
    expect(page.locator(f"#quality-{notes[0].pk}:not(.done)")).to_have_count(0)
    expect(page.locator(f"#quality-{notes[1].pk}")).to_be_visible()
