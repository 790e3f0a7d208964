"""A bulk action shows what it will decide, card by card, before it runs; cancelled, nothing is
written; a card that changed between the preview and the confirm is skipped, never overwritten."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from engine.write.edit import update_memory
from memories.models import Note, Pair

pytestmark = pytest.mark.browser


def _pairs(make_note, agent) -> list[tuple[Note, Note]]:
    """Three notes waiting in Merges, each beside the older note it resembles: (older, newer)."""
    pairs = []
    for older, newer in [
        ("Alice drinks green tea every morning.", "Alice drinks green tea every morning. She takes it without sugar."),
        ("Bob cycles to work.", "Bob cycles to work on a red bike."),
        ("Mia lives in Rome.", "Mia moved from Rome to Milan in May."),
    ]:
        old, new = make_note(agent, older), make_note(agent, newer)
        Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.9)
        pairs.append((old, new))
    return pairs


def _waiting(note: Note) -> bool:
    """Whether the note still waits in Merges (the newer note of an open merge pair)."""
    return Pair.objects.open().of_kind(Pair.MERGE).filter(newer=note).exists()


def test_the_preview_lists_what_same_fact_writes_for_each_card_and_cancel_writes_nothing(
    logged_in, live_server, alice, make_note
):
    page = logged_in
    pairs = _pairs(make_note, alice)
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.check("#select-all")
    page.click("#bulk-form button[value=same]")
    dialog = page.locator("#bulk-dialog")
    expect(dialog.locator("h2")).to_have_text("Same fact: 3 pairs?")
    items = dialog.locator("ol.will li")
    expect(items).to_have_count(3)
    expect(dialog).to_contain_text(
        "Write “Alice drinks green tea every morning. She takes it without sugar.” into the older note"
    )
    expect(dialog).to_contain_text("Write “Bob cycles to work on a red bike.” into the older note")
    dialog.locator("a:has-text('Cancel')").click()
    expect(dialog).to_be_hidden()
    assert [_waiting(new) for _, new in pairs] == [True] * 3
    assert [Note.objects.get(pk=old.pk).content for old, _ in pairs] == [old.content for old, _ in pairs]


def test_a_card_changed_after_its_preview_is_skipped_and_the_rest_is_done(logged_in, live_server, alice, make_note):
    page = logged_in
    pairs = _pairs(make_note, alice)
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.check("#select-all")
    page.keyboard.press("Shift+S")  # the keyboard way to the same preview
    dialog = page.locator("#bulk-dialog")
    expect(dialog.locator("ol.will li")).to_have_count(3)
    edited = "Mia lives in Rome and teaches Latin."
    update_memory(pairs[2][0].pk, edited, alice)  # the preview showed the old text
    dialog.locator("button.primary").click()
    expect(page.locator("#bulk-result")).to_contain_text(
        "Same fact: 2 pairs merged. 1 skipped: One of these notes changed"
    )
    assert Note.objects.get(pk=pairs[2][0].pk).content == edited
    assert _waiting(pairs[2][1])
    assert Note.objects.get(pk=pairs[1][0].pk).content == "Bob cycles to work on a red bike."
