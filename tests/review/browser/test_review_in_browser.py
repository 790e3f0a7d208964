"""The review app in a real browser: log in, search, open a note, a queue action through htmx, undo."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import Note, Pair

pytestmark = pytest.mark.browser


def test_search_open_a_note_and_undo_a_retire(logged_in, live_server, alice, make_note):
    page = logged_in
    note = make_note(alice, "Alice's cat is called Miso and sleeps on the piano.")
    make_note(alice, "The quarterly report is due on Friday afternoon.")
    expect(page.locator("#agent-alice")).to_be_visible()
    page.click("#agent-alice a")
    page.fill("#q", "cat called Miso")
    # htmx swaps the results partial in place (no page load) and pushes the URL.
    expect(page.locator("#results .hit").first).to_contain_text("Miso")
    expect(page.locator("#results .hit").first).to_contain_text("Fused")
    assert "q=cat" in page.url
    page.click("#results .hit a >> nth=0")
    page.wait_for_url(f"**/review/notes/{note.pk}/")
    page.once("dialog", lambda d: d.accept())  # retiring asks first
    page.click("text=Retire")
    expect(page.locator("#note-main .msg.success")).to_contain_text("Retired")
    assert not Note.objects.get(pk=note.pk).is_active
    page.click("#note-main .history button:has-text('Undo') >> nth=0")
    expect(page.locator("#note-main .msg.success")).to_contain_text("Undone")
    expect(page.locator("#note-main button:has-text('Retire')")).to_be_visible()
    assert Note.objects.get(pk=note.pk).is_active
    # A refused edit shows its message and changes nothing.
    page.fill("#content", "ok")
    page.click("text=Save text")
    expect(page.locator("#messages .msg.error")).to_contain_text("shorter than")
    assert Note.objects.get(pk=note.pk).content.startswith("Alice's cat")


def test_a_queue_action_swaps_the_card_and_undo_restores_it(logged_in, live_server, alice, make_note):
    page = logged_in
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks green tea each morning at seven.")
    pair = Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.8)
    waiting = Pair.objects.open().of_kind(Pair.MERGE).filter(newer=new)
    page.goto(f"{live_server.url}/review/queues/merges/")
    card = page.locator(f"#merge-{pair.pk}")
    card.locator("button:has-text('Both true')").click()
    expect(card).to_contain_text("Both true: kept both")
    assert not waiting.exists()
    card.locator("button:has-text('Undo')").click()
    expect(card.locator("button:has-text('Same fact')")).to_be_visible()
    assert waiting.exists()
