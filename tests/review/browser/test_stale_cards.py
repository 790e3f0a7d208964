"""A card shows two notes as they were when it was drawn; a decision taken on it must never
overwrite what changed since (an earlier merge into the same note, an edit elsewhere).

On the app before this change, the second merge into one note wrote the text drawn before the
first and dropped its sentence ("teenagers who are not avid hikers" was lost).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from engine.write.edit import update_memory
from memories.models import Note, Pair

pytestmark = pytest.mark.browser

TRIP = "Sarah is planning a trip for their family."
HIKERS = "The teenagers are not avid hikers."
JULY = "They want to travel in July."


def _two_cards_on_one_note(make_note, alice) -> tuple[Note, Pair, Pair]:
    """Two notes waiting in Merges beside the same existing note: (existing, first pair, second pair)."""
    existing = make_note(alice, TRIP)
    first = make_note(alice, f"{TRIP} {HIKERS}")
    second = make_note(alice, f"{TRIP} {JULY}")
    return (
        existing,
        Pair.objects.create(kind=Pair.MERGE, older=existing, newer=first, similarity=0.9),
        Pair.objects.create(kind=Pair.MERGE, older=existing, newer=second, similarity=0.88),
    )


def test_a_second_merge_into_the_same_note_keeps_the_first(logged_in, live_server, alice, make_note):
    page = logged_in
    existing, first, second = _two_cards_on_one_note(make_note, alice)
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.locator(f"#merge-{first.pk} button[data-decision=same]").click()
    expect(page.locator(f"#merge-{first.pk} [role=status]")).to_contain_text("Same fact")
    assert HIKERS in Note.objects.get(pk=existing.pk).content
    # The other card on the same note is drawn again at once, with the note as it is now.
    card = page.locator(f"#merge-{second.pk}")
    expect(card).to_contain_text("Drawn again")
    expect(card.locator("[data-preview]")).to_have_value(f"{TRIP} {HIKERS} {JULY}")
    card.locator("button[data-decision=same]").click()
    expect(card.locator("[role=status]")).to_contain_text("Same fact")
    assert Note.objects.get(pk=existing.pk).content == f"{TRIP} {HIKERS} {JULY}"


def test_a_card_drawn_before_an_edit_refuses_and_is_drawn_again(logged_in, live_server, alice, make_note):
    page = logged_in
    existing, first, _ = _two_cards_on_one_note(make_note, alice)
    page.goto(f"{live_server.url}/review/queues/merges/")
    card = page.locator(f"#merge-{first.pk}")
    expect(card.locator("[data-preview]")).to_have_value(f"{TRIP} {HIKERS}")
    # Meanwhile the agent edits the existing note (another tab, the API): the card does not know.
    edited = f"{TRIP} Their budget is tight this year."
    update_memory(existing.pk, edited, alice)
    card.locator("button[data-decision=same]").click()
    expect(card).to_contain_text("changed since this card was drawn")
    assert Note.objects.get(pk=existing.pk).content == edited  # nothing overwritten
    first.refresh_from_db()
    assert (
        first.status == Pair.OPEN and Note.objects.get(pk=first.newer_id).is_active
    )  # nothing merged from the stale card
    expect(card.locator("[data-preview]")).to_have_value(f"{edited} {HIKERS}")
    # Decided again on the card as it is now, it goes through.
    card.locator("button[data-decision=same]").click()
    expect(card.locator("[role=status]")).to_contain_text("Same fact")
    assert Note.objects.get(pk=existing.pk).content == f"{edited} {HIKERS}"
