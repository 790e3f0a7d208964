"""The dedup ladder: the 0.85 / 0.72 boundaries, L2 fold, L2.5 flag and its target, write rights."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine import runtime
from engine.config import EngineConfig
from engine.index.embeddings import from_bytes
from engine.text import content_hash, embedding_text
from engine.write import dedup
from engine.write.pipeline import CREATED, FLAGGED, FOLDED, add_memory
from memories.models import Note, Pair

CFG = EngineConfig()


@pytest.mark.parametrize(
    "similarity, step",
    [
        (1.0, dedup.FOLD),
        (0.85, dedup.FOLD),
        (0.8499, dedup.FLAG),
        (0.72, dedup.FLAG),
        (0.7199, dedup.INSERT),
        (0.3, dedup.INSERT),
    ],
)
def test_the_ladder_boundaries_are_inclusive_at_085_and_072(similarity, step):
    assert dedup.step_for(similarity, CFG) == step


def _r(sim: float, writable: bool) -> dedup.Resemblance:
    return dedup.Resemblance(Note(content=f"note at {sim}"), sim, writable)


def test_a_close_note_the_caller_cannot_write_is_neither_folded_into_nor_flagged():
    assert dedup.decide([_r(0.93, False)], CFG).action == dedup.INSERT


def test_the_closest_writable_note_is_the_target_even_behind_a_foreign_one():
    own = _r(0.88, True)
    decision = dedup.decide([_r(0.95, False), own], CFG)
    assert (decision.action, decision.target, decision.similarity) == (dedup.FOLD, own.note, 0.88)


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_a_rephrased_fact_folds_into_the_existing_note(alice, store):  # B110
    old = add_memory("Staging uses PostgreSQL 16 on its own dedicated server.", alice, sources=["m1"])
    before = Note.objects.get(pk=old.note.pk)
    # Offline, only the same statement folds (engine/reading/same_statement.py): here the old
    # sentence word for word, and a new one.
    text = "Staging uses PostgreSQL 16 on its own dedicated server. The server has 64 GB of RAM."  # cos 0.854
    result = add_memory(text, alice, sources=["m2"])
    note = Note.objects.get(pk=old.note.pk)
    assert (result.outcome, result.note.pk) == (FOLDED, old.note.pk)
    assert Note.objects.count() == 1
    # The new detail is merged in, the old text is not lost.
    assert "64 GB" in note.content and before.content in note.content
    assert note.content_hash == content_hash(note.content)
    assert note.sources == ["m1", "m2"]
    # A new revision, marked dirty and then indexed by the write's after-commit sync.
    assert note.revision > before.revision and not note.index_dirty and note.indexed_at is not None


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_a_fold_keeps_the_old_state_in_history_and_refreshes_every_derived_field(alice, store):
    old = add_memory("Bob has a golden retriever named Rex.", alice)
    add_memory("Bob has a golden retriever named Rex. Rex is four years old.", alice)
    note = Note.objects.get(pk=old.note.pk)
    fold = note.events.get(action="fold")
    assert fold.before["content"] == "Bob has a golden retriever named Rex."
    assert fold.after["content"] == note.content
    assert fold.after["folded_text"].endswith("Rex is four years old.")
    assert note.content == "Bob has a golden retriever named Rex. Rex is four years old."
    assert "years" in [k.lower() for k in note.keywords], note.keywords
    expected = runtime.embedder().encode_one(embedding_text(note.content, note.keywords, note.tags, note.context))
    assert np.allclose(from_bytes(note.embedding), expected, atol=1e-5)


def test_a_fold_that_adds_nothing_keeps_the_note_and_records_the_new_sources(alice, store):
    old = add_memory("Alice prefers green tea in the morning.", alice, sources=["a"])
    result = add_memory("alice prefers green tea in the morning", alice, sources=["b"])
    note = Note.objects.get(pk=old.note.pk)
    assert result.outcome == FOLDED
    assert note.sources == ["a", "b"]
    assert note.events.filter(action="fold").exists()


def test_a_close_shared_note_of_another_agent_is_not_overwritten(alice, bob, store):  # B109
    shared = add_memory("Staging uses PostgreSQL 16 on its own dedicated server.", alice, scope="shared")
    result = add_memory("The staging database runs PostgreSQL 16 on a dedicated host.", bob)
    assert result.outcome == CREATED and result.note.owner == "bob" and result.note.pk != shared.note.pk
    assert Note.objects.get(pk=shared.note.pk).content == "Staging uses PostgreSQL 16 on its own dedicated server."
    assert not Pair.objects.filter(newer=result.note).exists()


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_a_close_shared_note_listing_the_caller_as_writer_is_folded_into(alice, bob, store):  # B111
    shared = add_memory("Staging uses PostgreSQL 16 on its own dedicated server.", alice, scope="shared")
    Note.objects.filter(pk=shared.note.pk).update(writers=["alice", "bob"])
    result = add_memory("Staging uses PostgreSQL 16 on its own dedicated server!", bob)
    assert (result.outcome, result.note.pk) == (FOLDED, shared.note.pk)


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_with_a_model_a_borderline_note_is_inserted_flagged_with_the_note_it_resembled(alice, store, provider):  # L2.5
    staging = add_memory("The staging database runs PostgreSQL 16 on a dedicated host.", alice)
    result = add_memory("The production database runs PostgreSQL 15.", alice)
    note = Note.objects.get(pk=result.note.pk)
    assert result.outcome == FLAGGED
    waiting = Pair.objects.open().of_kind(Pair.MERGE).get(newer=note)
    assert waiting.older_id == staging.note.pk
    assert 0.72 <= waiting.similarity < 0.85
    assert result.similar_to == str(staging.note.pk)
    assert note.events.get(action="create").after["merge_candidate"] == str(staging.note.pk)


@pytest.mark.realmodel
def test_offline_a_borderline_note_waits_for_the_nightly_sweep_not_in_a_queue_at_write(alice, store):
    add_memory("The staging database runs PostgreSQL 16 on a dedicated host.", alice)
    result = add_memory("The production database runs PostgreSQL 15.", alice)
    assert result.outcome == CREATED and not Note.objects.waiting(Pair.MERGE).exists()


def test_moving_the_thresholds_moves_the_outcome(alice, store, engine_config):
    engine_config(dedup_fold_sim=0.99, dedup_flag_sim=0.95)
    add_memory("Alice prefers green tea in the morning.", alice)
    result = add_memory("Alice likes to drink green tea every morning before work.", alice)  # cos ≈ 0.92
    assert result.outcome != FOLDED and Note.objects.count() == 2


def test_when_the_model_says_two_facts_the_new_one_is_kept_and_flagged(alice, store, provider):
    provider.reply_json({"should_merge": False}, role="should_merge")
    old = add_memory("Alice prefers green tea in the morning.", alice)
    result = add_memory("In the morning Alice prefers green tea.", alice)
    assert result.outcome == FLAGGED
    assert Pair.objects.open().of_kind(Pair.MERGE).get(newer=result.note).older_id == old.note.pk
    assert Note.objects.get(pk=old.note.pk).content == "Alice prefers green tea in the morning."


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_the_models_merged_text_replaces_the_content_and_is_reconstructed(alice, store, provider):
    provider.reply_json(
        {"keywords": ["Rex", "golden retriever"], "tags": ["pets"], "context": "Bob's dog.", "category": "Personal"},
        role="construct",
    )
    old = add_memory("Bob has a golden retriever named Rex.", alice)
    merged = "Bob's golden retriever Rex is four years old."
    provider.reply_json({"should_merge": True, "merged": merged}, role="should_merge")
    provider.reply_json(
        {"keywords": ["Rex", "age"], "tags": ["pets", "age"], "context": "Rex's age.", "category": "Personal"},
        role="construct",
    )
    result = add_memory("Bob has a golden retriever named Rex. Rex is four years old.", alice)
    note = Note.objects.get(pk=old.note.pk)
    assert result.outcome == FOLDED
    assert note.content == "Bob's golden retriever Rex is four years old."
    assert (note.keywords, note.tags, note.context) == (["Rex", "age"], ["pets", "age"], "Rex's age.")
    merge_prompt = provider.requests_for("should_merge")[0].prompt
    assert "Bob has a golden retriever named Rex." in merge_prompt
    assert json.dumps(note.events.get(action="fold").before["keywords"]) == json.dumps(["Rex", "golden retriever"])
