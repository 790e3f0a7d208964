"""The L1 claim (note_unique_active_write_key): what decides a race between identical writes.

Two writers of one text can both pass the L1 lookup before either commits. These tests put a
write in exactly that position (the lookup and L2 made blind to the first note) and check that
the database, not timing, decides: the second is answered "duplicate" with the first's id.
The live tests (tests/live/test_concurrent_dedup.py) show the same under real concurrency.
"""

from __future__ import annotations

import pytest

from engine.write import dedup
from engine.write.edit import retire_memory, update_memory
from engine.write.pipeline import CREATED, DUPLICATE, add_memory
from memories.models import Note

TEXT = "The harbour ferry stops running after the first heavy snowfall."


@pytest.fixture
def blind_l1_and_l2(monkeypatch):
    """As if the first write had not committed when the second looked."""
    monkeypatch.setattr(dedup, "find_exact", lambda *a, **k: None)
    monkeypatch.setattr(dedup, "resemblances", lambda *a, **k: [])


def test_a_write_that_missed_l1_is_answered_duplicate_with_the_winners_id(alice, store, blind_l1_and_l2):
    first = add_memory(TEXT, alice)
    second = add_memory("  the harbour FERRY stops running after the first heavy snowfall. ", alice)
    assert (first.outcome, second.outcome) == (CREATED, DUPLICATE)
    assert second.note.pk == first.note.pk and second.similar_to == str(first.note.pk)
    assert Note.objects.count() == 1


def test_the_same_text_about_another_subject_is_its_own_note(alice, store, blind_l1_and_l2):
    add_memory(TEXT, alice, subjects=["ann"])
    other = add_memory(TEXT, alice, subjects=["ben"])
    assert other.outcome == CREATED and Note.objects.count() == 2


def test_another_agent_may_hold_the_same_text(alice, bob, store, blind_l1_and_l2):
    add_memory(TEXT, alice)
    assert add_memory(TEXT, bob).outcome == CREATED


def test_a_retired_note_releases_its_claim(alice, store, blind_l1_and_l2):
    first = add_memory(TEXT, alice)
    retire_memory(first.note.pk, alice)
    again = add_memory(TEXT, alice)
    assert again.outcome == CREATED and again.note.pk != first.note.pk
    first.note.refresh_from_db()
    assert first.note.write_key is None


def test_an_edited_note_releases_the_claim_on_its_old_text(alice, store, blind_l1_and_l2):
    first = add_memory(TEXT, alice)
    update_memory(first.note.pk, "The harbour ferry now runs all winter, snow or not.", alice)
    again = add_memory(TEXT, alice)
    assert again.outcome == CREATED and Note.objects.filter(is_active=True).count() == 2


def test_a_write_whose_l1_missed_but_whose_l2_sees_the_winner_is_a_duplicate_not_a_fold(alice, store, monkeypatch):
    """The race the live test hit under load: the winner committed and was indexed between the
    loser's L1 lookup and its L2 lookup, so L2 found it at similarity 1.0 and folded into it."""
    first = add_memory(TEXT, alice)
    real_find_exact = dedup.find_exact
    calls = []

    def l1_misses_once(*args, **kwargs):
        calls.append(1)
        return None if len(calls) == 1 else real_find_exact(*args, **kwargs)

    monkeypatch.setattr(dedup, "find_exact", l1_misses_once)
    second = add_memory(TEXT, alice)
    assert second.outcome == DUPLICATE and second.note.pk == first.note.pk
    first.note.refresh_from_db()
    assert first.note.content == TEXT  # not folded into itself
    assert Note.objects.count() == 1
