"""The review app's core-memory page: list, edit (same limit), undo; only agents the reviewer may review."""

from __future__ import annotations

from engine.annotations import facts
from engine.layers import core
from memories.models import CoreBlock, CoreEvent


def test_the_page_lists_blocks_with_history(rclient, alice):
    core.replace(alice, "user", "name", "Alex")
    r = rclient.get(f"/review/agents/{alice.pk}/core/")
    assert r.status_code == 200
    body = r.content.decode()
    assert "user" in body and "Alex" in body and "replace" in body and "Undo" in body


def test_a_reviewer_edits_a_block_and_undoes_the_edit(rclient, alice, settings):
    block = core.replace(alice, "user", "name", "Alex")
    r = rclient.post(f"/review/core/{block.pk}/edit/", {"value": '{"name": "Alexandra"}'})
    assert r.status_code == 302
    block.refresh_from_db()
    assert block.value == {"name": "Alexandra"}
    edit = CoreEvent.objects.get(action="review_edit")
    assert edit.actor == "review:rita" and edit.before == {"name": "Alex"}
    rclient.post(f"/review/core/events/{edit.pk}/undo/")
    block.refresh_from_db()
    assert block.value == {"name": "Alex"}
    # Over the limit or not JSON: refused, unchanged.
    settings.AMEM_CORE_BLOCK_LIMIT = 64
    rclient.post(f"/review/core/{block.pk}/edit/", {"value": '{"name": "' + "x" * 100 + '"}'})
    rclient.post(f"/review/core/{block.pk}/edit/", {"value": "{not json"})
    block.refresh_from_db()
    assert block.value == {"name": "Alex"}


def test_another_agents_core_memory_is_404_for_the_reviewer(rclient, bob):
    block = core.replace(bob, "user", "name", "Bo")
    assert rclient.get(f"/review/agents/{bob.pk}/core/").status_code == 404
    assert rclient.post(f"/review/core/{block.pk}/edit/", {"value": "{}"}).status_code == 404
    event = CoreEvent.objects.get()
    assert rclient.post(f"/review/core/events/{event.pk}/undo/").status_code == 404
    assert CoreBlock.objects.get().value == {"name": "Bo"}


def test_the_note_page_shows_the_facts_read_from_it(rclient, alice, make_note):
    note = make_note(alice, "Alex moved to Lisbon in May.")
    facts.add_fact(alice, "Alex", "lives_in", "Lisbon", sources=[str(note.pk)])
    body = rclient.get(f"/review/notes/{note.pk}/").content.decode()
    assert "lives_in" in body and "Lisbon" in body
