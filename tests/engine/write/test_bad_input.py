"""Bad input fails with a clear error before anything is written to the database or the index."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput, NotFound, QualityRejected
from engine.write.edit import retire_memory, update_memory
from engine.write.pipeline import add_memory


@pytest.fixture
def seeded(alice, bob, store, drain):
    """A few notes of both agents, indexed, so 'no change' is measured against a real state."""
    add_memory("Alice keeps her climbing gear in the blue locker.", alice)
    add_memory("Bob's private note: the safe code is 4-8-15-16.", bob)
    drain()


@pytest.mark.parametrize(
    "text, error, message",
    [
        ("", QualityRejected, "quality"),
        ("   \n\t  ", QualityRejected, "quality"),
        ("x" * 1_000_000, InvalidInput, "limit"),
        (b"caf\xc3 au lait is what Alice orders", InvalidInput, "UTF-8"),
        ("Alice orders \x00 caf\u00e9 au lait daily", InvalidInput, "control"),
        ("Alice orders a latte \x1b[31m every day", InvalidInput, "control"),
        ("Lone surrogate \ud800 in an otherwise fine text", InvalidInput, "UTF-8"),
        (None, InvalidInput, "string"),
    ],
)
def test_bad_text_is_refused_and_nothing_changes(text, error, message, alice, store, seeded, snapshot):
    before = snapshot(store, alice)
    with pytest.raises(error, match=message):
        add_memory(text, alice)
    assert snapshot(store, alice) == before


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"scope": "public"}, "scope"),
        ({"subjects": "alex"}, "subjects"),
        ({"subjects": [""]}, "subjects"),
        ({"sources": [42]}, "sources"),
        ({"note_type": "fact"}, "note_type"),
        ({"occurred_at": "2023-05-08"}, "occurred_at"),
    ],
)
def test_bad_fields_are_refused_and_nothing_changes(kwargs, message, alice, store, seeded, snapshot):
    before = snapshot(store, alice)
    with pytest.raises(InvalidInput, match=message):
        add_memory("A perfectly good sentence about the garden.", alice, **kwargs)
    assert snapshot(store, alice) == before


def test_an_unknown_agent_is_refused_and_nothing_changes(alice, store, seeded, snapshot):
    before = snapshot(store, alice)
    with pytest.raises(NotFound, match="no active agent 'ghost'"):
        add_memory("A perfectly good sentence about the garden.", "ghost")
    assert snapshot(store, alice) == before


@pytest.mark.parametrize("note_id", ["not-a-uuid", "27e515a3-c461-4397-bfc8-b3a11de43cf7", "bob-note"])
def test_foreign_or_unknown_note_ids_are_not_found_and_nothing_changes(note_id, alice, bob, store, seeded, snapshot):
    from memories.models import Note

    if note_id == "bob-note":
        note_id = str(Note.objects.get(owner="bob").pk)
    before = snapshot(store, alice)
    with pytest.raises(NotFound, match="no such note"):
        update_memory(note_id, "Rewritten by someone who may not see it.", alice)
    with pytest.raises(NotFound, match="no such note"):
        retire_memory(note_id, alice)
    assert snapshot(store, alice) == before
