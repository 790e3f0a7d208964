"""add_memory end to end on a real index: gate, L1, construction, the recipe, subjects, scope."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from engine import runtime
from engine.errors import InvalidInput, QualityRejected
from engine.index.embeddings import from_bytes
from engine.retrieval.search import search
from engine.text import embedding_text
from engine.write.pipeline import CREATED, DUPLICATE, add_memory
from memories.models import Note, NoteEvent


def test_a_short_text_is_rejected_with_a_reason_and_nothing_is_written(alice, store):  # B015, B018
    for text in ("ok", "   ok!   ", "??"):
        with pytest.raises(QualityRejected, match="quality"):
            add_memory(text, alice)
    assert Note.objects.count() == 0 and NoteEvent.objects.count() == 0


def test_a_normal_sentence_is_created_constructed_and_not_ephemeral(alice, store):  # B016
    result = add_memory("The team moved the staging database to PostgreSQL 16.", alice)
    note = Note.objects.get(pk=result.note.pk)
    assert result.outcome == CREATED and not note.ephemeral
    assert note.keywords and note.tags and note.context
    assert "PostgreSQL" in note.keywords
    assert list(note.events.values_list("action", flat=True)) == ["create"]


def test_signal_words_mark_the_memory_ephemeral(alice, store):  # B017
    assert add_memory("数据迁移脚本待跑，明早再检查一次结果", alice).note.ephemeral


def test_the_stored_vector_follows_the_one_recipe(alice, store):
    note = Note.objects.get(pk=add_memory("Caroline adopted a grey kitten called Mochi.", alice).note.pk)
    expected = runtime.embedder().encode_one(embedding_text(note.content, note.keywords, note.tags, note.context))
    assert np.allclose(from_bytes(note.embedding), expected, atol=1e-5)


def test_the_original_time_subjects_and_sources_are_kept(alice, store):  # B128, B129
    when = dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    result = add_memory(
        "Alex and Sam painted the fence together on Saturday.",
        alice,
        subjects=["alex", "sam"],
        sources=["D1:3"],
        occurred_at=when,
    )
    note = Note.objects.get(pk=result.note.pk)
    assert (note.subjects, note.sources, note.created_at) == (["alex", "sam"], ["D1:3"], when)


def test_without_subjects_a_memory_is_a_world_fact(alice, store):  # B130
    assert add_memory("Water boils at lower temperatures at high altitude.", alice).note.subjects == []


def test_a_naive_occurred_at_is_refused(alice, store):
    with pytest.raises(InvalidInput, match="time zone"):
        add_memory("An event at an unknown offset from UTC.", alice, occurred_at=dt.datetime(2023, 1, 1))


def test_shared_scope_is_readable_by_everyone_and_writable_by_the_caller(alice, bob, store):
    note = add_memory("The office wifi password rotates on the first Monday.", alice, scope="shared").note
    assert (note.agent_id, note.owner, note.readers, note.writers) == ("shared", "alice", ["*"], ["alice"])
    assert search("wifi password rotation", bob, heat=False)[0].note.pk == note.pk


def test_a_caller_given_note_type_wins_over_construction(alice, store):
    note = add_memory("HTTP 429 means the client sent too many requests.", alice, note_type="knowledge").note
    assert note.note_type == "knowledge" and note.topics
    with pytest.raises(InvalidInput, match="note_type"):
        add_memory("HTTP 418 is the teapot status code from an RFC joke.", alice, note_type="fact")


def test_the_same_text_again_returns_the_existing_note_and_writes_nothing(alice, store):  # L1
    first = add_memory("Alice prefers green tea in the morning.", alice)
    before = (Note.objects.count(), NoteEvent.objects.count())
    again = add_memory("  alice PREFERS green tea   in the morning. ", alice)
    assert (again.outcome, again.note.pk) == (DUPLICATE, first.note.pk)
    assert (Note.objects.count(), NoteEvent.objects.count()) == before


def test_exact_text_about_another_subject_is_not_a_duplicate(alice, store):
    alex = add_memory("Likes hiking in the mountains every summer.", alice, subjects=["alex"])
    sam = add_memory("Likes hiking in the mountains every summer.", alice, subjects=["sam"])
    assert sam.outcome != DUPLICATE and sam.note.pk != alex.note.pk


def test_exact_text_only_dedups_against_notes_the_caller_can_read(alice, bob, store):
    add_memory("The launch code for the demo is orange-falcon.", alice)
    result = add_memory("The launch code for the demo is orange-falcon.", bob)
    assert result.outcome != DUPLICATE and result.note.owner == "bob"


def test_an_agents_private_memory_is_invisible_to_another_agent(alice, bob, store):  # B137
    add_memory("Alice's token zebra-quartz-77 unlocks her locker.", alice)
    assert search("zebra-quartz-77", bob, heat=False) == []


def test_a_written_memory_is_found_by_its_own_sentence(alice, store):  # B136
    text = "The greenhouse heater switches on below five degrees."
    add_memory(text, alice)
    assert search(text, alice, heat=False)[0].note.content == text


def test_a_subject_scoped_search_sees_that_subject_shared_experiences_and_world_facts(alice, store):  # B133
    alex = add_memory("Alex likes hiking in the Alps every summer.", alice, subjects=["alex"]).note
    sam = add_memory("Sam likes hiking in the Rockies every autumn.", alice, subjects=["sam"]).note
    both = add_memory("Alex and Sam went hiking together in Norway.", alice, subjects=["alex", "sam"]).note
    world = add_memory("Hiking boots should be broken in before long trips.", alice).note

    def found(subject):
        return {r.note.pk for r in search("hiking", alice, limit=10, subject=subject, heat=False, links=False)}

    assert found("alex") == {alex.pk, both.pk, world.pk}
    assert found("sam") == {sam.pk, both.pk, world.pk}
    assert found(None) == {alex.pk, sam.pk, both.pk, world.pk}
