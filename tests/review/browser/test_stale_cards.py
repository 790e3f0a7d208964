"""A card shows two notes as they were when the page was drawn; a decision taken on it must not
overwrite what changed since (an earlier merge into the same note, an edit in another tab)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import Note

pytestmark = pytest.mark.browser

TRIP = "Sarah is planning a trip for their family."


def test_a_stale_merge_preview_refuses_and_never_drops_an_earlier_merge(logged_in, live_server, alice, make_note):
    page = logged_in
    existing = make_note(alice, TRIP)
    first = make_note(
        alice,
        f"{TRIP} The teenagers are not avid hikers.",
        pending_merge=True,
        merge_candidate=existing,
        merge_similarity=0.9,
    )
    second = make_note(
        alice,
        f"{TRIP} They want to travel in July.",
        pending_merge=True,
        merge_candidate=existing,
        merge_similarity=0.88,
    )
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.locator(f"#merge-{first.pk} button:has-text('Merge')").click()
    expect(page.locator(f"#merge-{first.pk} [role=status]")).to_contain_text("Merged")
    assert "teenagers" in Note.objects.get(pk=existing.pk).content
    # The second card still shows the existing note's old text: deciding on it must not write it.
    page.locator(f"#merge-{second.pk} button:has-text('Merge')").click()
    card = page.locator(f"#merge-{second.pk}")
    expect(card).to_contain_text("changed since")
    existing.refresh_from_db()
    assert "teenagers" in existing.content, existing.content
    assert Note.objects.get(pk=second.pk).is_active  # nothing was merged from the stale card
    # The card is drawn again as the notes are now: its prepared text keeps the first merge.
    expect(card.locator("[data-preview]")).to_have_value(
        f"{TRIP} The teenagers are not avid hikers. They want to travel in July."
    )
