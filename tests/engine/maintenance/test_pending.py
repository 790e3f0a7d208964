"""Pending-merge resolution: each open merge pair, the evolution judge against the note it resembled, whatever day."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from engine import runtime
from engine.index.embeddings import from_bytes
from engine.maintenance import merge
from engine.maintenance.runner import Gate, run_step
from engine.text import embedding_text
from memories.models import Link, Note, NoteEvent, Pair
from tests.engine.maintenance.conftest import axis, near, put, wrote

NOTE = {"keywords": ["Rex", "beagle"], "tags": ["pets", "dogs"], "context": "Alice's dog.", "category": "Personal"}
OLD = "Alice has a dog named Rex."
NEW = "Alice's dog Rex is a four-year-old beagle."
MERGED = "Alice has a dog named Rex, a four-year-old beagle."


def flagged(agent, content: str, vector, against: Note, *, similarity: float | None = None, **fields) -> Note:
    """A newer note waiting for a merge decision against ``against`` (L2.5): an open merge pair."""
    note = put(agent, content, vector, **fields)
    Pair.objects.create(kind=Pair.MERGE, older=against, newer=note, similarity=similarity, opened_by="write")
    return note


def pending(note: Note) -> bool:
    """Whether ``note`` waits as the newer note of an open merge pair."""
    return Pair.objects.open().of_kind(Pair.MERGE).filter(newer=note).exists()


@pytest.fixture
def pair(alice):
    """An older note and a newer one flagged against it (L2.5), with links on both sides."""
    old = put(alice, OLD, axis(0), created_at=timezone.now() - timedelta(days=40), sources=["m1"], retrieval_count=3)
    new = flagged(
        alice,
        NEW,
        near(0, 0.8, 1),
        old,
        similarity=0.8,
        sources=["m2"],
        retrieval_count=2,
        last_accessed=timezone.now(),
    )
    return old, new


def judge(provider, verdict: str, merged: str = "", reason: str = "same dog") -> None:
    provider.reply_json({"verdict": verdict, "mergedContent": merged, "reason": reason}, role="evolution_judge")


def resolve(agent, **kw):
    return run_step("pending_merge", agent, **kw)


def test_evolve_folds_the_flagged_note_into_the_one_it_resembled(alice, bob, pair, provider):
    old, new = pair
    linker = put(alice, "Alice walks Rex every morning.", axis(5))
    foreign = put(bob, "Bob met Alice's dog at the park.", axis(6))
    Link.objects.create(source=linker, target=new)
    Link.objects.create(source=foreign, target=new)
    Link.objects.create(source=new, target=linker)
    judge(provider, "EVOLVE", MERGED)
    provider.reply_json(NOTE, role="construct")

    row = resolve(alice)

    old.refresh_from_db()
    new.refresh_from_db()
    assert row.outcome == "ok" and row.counts == {"pending": 1, "llm_calls": 2, "merged": 1}
    # The judge saw old = the candidate, new = the flagged note.
    prompt = provider.requests_for("evolution_judge")[0].prompt
    assert prompt.index(OLD) < prompt.index(NEW)
    # Winner: merged text through the fold, re-embedded with the one recipe, counters summed, sources unioned.
    assert old.content == MERGED and old.keywords == NOTE["keywords"] and old.evolution_type == "EVOLVE"
    expected = runtime.embedder().encode_one(embedding_text(old.content, old.keywords, old.tags, old.context))
    assert np.allclose(from_bytes(old.embedding), expected, atol=1e-5)
    assert old.sources == ["m1", "m2"] and old.retrieval_count == 5 and old.last_accessed == new.last_accessed
    assert old.index_dirty and old.revision == 2
    # Loser: retired, not deleted, pointing at the winner; dirty so the index drops it.
    assert (new.is_active, new.merged_into_id, pending(new)) == (False, old.pk, False)
    decided = Pair.objects.get(newer=new)
    assert (decided.older_id, decided.status, decided.resolution) == (old.pk, Pair.RESOLVED, "merged")
    assert new.index_dirty and new.revision == 2
    # Links: the writable linker now points at the winner; bob's note is bob's business; copied out-link.
    assert set(Link.objects.filter(target=old).values_list("source", flat=True)) == {linker.pk}
    assert Link.objects.filter(source=foreign, target=new).exists()
    assert Link.objects.filter(source=old, target=linker).exists()
    # History on both sides.
    assert list(old.events.values_list("action", flat=True)) == ["fold", "consolidate"]
    assert old.events.get(action="fold").before["content"] == OLD
    assert old.events.get(action="consolidate").after["merged"] == str(new.pk)
    retire = new.events.get(action="retire")
    # The pair's decision rides on the retire event, so an undo of the merge opens the pair again.
    assert retire.before == {"is_active": True, "merged_into": None, "pair": retire.before["pair"]}
    assert (retire.before["pair"]["status"], retire.after["pair"]["status"]) == (Pair.OPEN, Pair.RESOLVED)
    assert retire.before["pair"]["id"] == decided.pk
    assert retire.after["merged_into"] == str(old.pk) and retire.after["job"] == "pending_merge"
    assert retire.after["group"] == old.events.get(action="fold").after["group"]


def test_the_review_app_undoes_a_whole_merge_from_either_note(alice, pair, provider, django_user_model):
    from engine.curation.actions import undo

    old, new = pair
    judge(provider, "EVOLVE", MERGED)
    provider.reply_json(NOTE, role="construct")
    resolve(alice)
    reviewer = django_user_model.objects.create_user("rita", is_staff=True)
    undo(Note.objects.get(pk=new.pk).events.get(action="retire"), reviewer, may_review=lambda agent_id: True)
    old.refresh_from_db()
    new.refresh_from_db()
    assert new.is_active and new.merged_into is None and pending(new)
    assert old.content == OLD and old.is_active


def test_expand_merges_too_and_says_so(alice, pair, provider):
    old, new = pair
    judge(provider, "EXPAND", MERGED)
    provider.reply_json(NOTE, role="construct")
    resolve(alice)
    old.refresh_from_db()
    assert old.evolution_type == "EXPAND" and old.content == MERGED
    assert not Note.objects.get(pk=new.pk).is_active


def test_conflict_opens_a_pair_for_review_and_keeps_both_notes(alice, pair, provider):
    old, new = pair
    judge(provider, "CONFLICT", reason="two different breeds")
    row = resolve(alice)
    new.refresh_from_db()
    old.refresh_from_db()
    conflict = Pair.objects.get()
    assert (conflict.newer_id, conflict.older_id, conflict.kind, conflict.reason, conflict.status) == (
        new.pk,
        old.pk,
        Pair.CONFLICT,
        "two different breeds",
        "open",
    )
    assert new.is_active and old.is_active and not pending(new)
    assert set(Note.objects.waiting(Pair.CONFLICT).values_list("pk", flat=True)) == {new.pk, old.pk}
    assert new.evolution_type == old.evolution_type == "CONFLICT"
    assert old.content == OLD and row.counts["conflicts"] == 1
    assert not new.index_dirty and not old.index_dirty  # nothing the index holds changed


def test_new_only_clears_the_flag(alice, pair, provider):
    old, new = pair
    judge(provider, "NEW", reason="different facts")
    row = resolve(alice)
    new.refresh_from_db()
    assert not pending(new) and new.is_active and new.evolution_type == "NEW"
    decided = Pair.objects.get(newer=new)
    assert (decided.older_id, decided.status, decided.resolution) == (old.pk, Pair.RESOLVED, "distinct")
    event = new.events.get()
    assert event.action == "flag" and event.after["op"] == "close_pair" and event.after["pair_id"] == decided.pk
    assert event.after["resolution"] == "distinct" and event.after["reason"] == "different facts"
    assert Note.objects.get(pk=old.pk).content == OLD and row.counts["new"] == 1


def test_a_second_run_changes_nothing(alice, pair, provider):
    judge(provider, "EVOLVE", MERGED)
    provider.reply_json(NOTE, role="construct")
    resolve(alice)
    events, calls = NoteEvent.objects.count(), len(provider.requests)
    row = resolve(alice)
    assert row.counts == {} and NoteEvent.objects.count() == events and len(provider.requests) == calls


def test_a_candidate_merged_away_is_replaced_by_its_winner(alice, pair, provider):
    old, _new = pair
    winner = put(alice, "Alice has a dog named Rex who loves the beach.", axis(0))
    Note.objects.filter(pk=old.pk).update(is_active=False, merged_into=winner)
    judge(provider, "NEW")
    resolve(alice)
    prompt = provider.requests_for("evolution_judge")[0].prompt
    assert "loves the beach" in prompt and OLD not in prompt


def test_a_candidate_that_is_gone_clears_the_flag_without_a_model_call(alice, pair, provider):
    old, new = pair
    Note.objects.filter(pk=old.pk).update(is_active=False)
    row = resolve(alice)
    assert not pending(new) and Pair.objects.get(newer=new).resolution == "gone"
    assert provider.requests == [] and row.counts == {"pending": 1, "cleared": 1}


def test_a_failed_judgement_leaves_the_note_pending(alice, pair, provider):
    _old, new = pair
    provider.fail(500, role="evolution_judge")
    row = resolve(alice)
    assert row.outcome == "partial" and row.counts["llm_failed"] == 1
    assert pending(new) and not NoteEvent.objects.exists()


def test_an_unusable_merged_text_leaves_the_note_pending(alice, pair, provider):
    judge(provider, "EVOLVE", "Rex.")  # would fail the quality gate
    row = resolve(alice)
    assert row.counts["unusable"] == 1
    assert pending(pair[1]) and not NoteEvent.objects.exists()


def test_a_failure_in_the_middle_of_a_merge_leaves_no_partial_merge(alice, pair, provider, monkeypatch):
    old, new = pair
    linker = put(alice, "Alice walks Rex every morning.", axis(5))
    Link.objects.create(source=linker, target=new)
    judge(provider, "EVOLVE", MERGED)
    provider.reply_json(NOTE, role="construct")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(merge, "_move_links", broken)
    row = resolve(alice)
    assert row.outcome == "failed" and "disk full" in row.detail
    old.refresh_from_db()
    new.refresh_from_db()
    assert (old.content, old.revision, old.retrieval_count, old.sources) == (OLD, 1, 3, ["m1"])
    assert (new.is_active, pending(new), new.revision) == (True, True, 1)
    assert not NoteEvent.objects.exists()
    assert Link.objects.filter(source=linker, target=new).exists()


def test_a_write_during_the_run_stops_it_at_the_next_judgement(alice, pair, provider, monkeypatch):
    _old, new = pair
    other_old = put(alice, "The staging server runs Debian 12.", axis(9))
    second = flagged(
        alice,
        "Staging runs Debian 12 with a backports kernel.",
        near(9, 0.8, 10),
        other_old,
        created_at=timezone.now() + timedelta(seconds=1),
    )
    wrote(alice, timezone.now() - timedelta(minutes=5))
    real = runtime.llm().evolution_judge

    def judged_while_alice_writes(*args, **kwargs):
        wrote(alice)  # a write arrives while the model thinks
        return real(*args, **kwargs)

    monkeypatch.setattr(runtime.llm(), "evolution_judge", judged_while_alice_writes)
    judge(provider, "NEW")
    row = resolve(alice, gate=Gate(60))
    assert row.outcome == "stopped"
    assert not pending(new)  # decided before the write was seen
    assert pending(second)  # left for the next run
    assert len(provider.requests_for("evolution_judge")) == 1


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_offline_near_duplicates_are_expanded_with_both_sentences_and_others_left_for_a_person(alice):
    old = put(alice, "Alice's dog is named Rex.", axis(0))
    new = flagged(alice, "Alice's dog is named Rex. Rex is a beagle.", near(0, 0.8, 1), old)
    other = put(alice, "Alice is allergic to peanuts.", axis(9))
    reworded = flagged(alice, "Alice has a peanut allergy.", near(9, 0.8, 10), other)
    row = resolve(alice)
    old.refresh_from_db()
    assert row.outcome == "ok" and row.counts["merged"] == 1 and row.counts["left_for_review"] == 1
    assert old.content == "Alice's dog is named Rex. Rex is a beagle." and old.evolution_type == "EXPAND"
    assert not Note.objects.get(pk=new.pk).is_active
    # Not the same statement, but a rewording: offline the job cannot tell, so the note waits for a person.
    assert Note.objects.get(pk=reworded.pk).is_active and pending(reworded)


def test_offline_nothing_the_rules_cannot_confirm_is_cleared_every_pair_waits_with_its_guess(alice):
    """Two observations of one person, and a rewording: offline neither can be told from a change."""
    climb = put(alice, "Andrew recently took a rock climbing class and made it to the top of the wall.", axis(0))
    photo = flagged(
        alice,
        "Andrew shared a photo of the view from the top of the rock he climbed with friends.",
        near(0, 0.8, 1),
        climb,
    )
    studio = put(alice, "Jon started his own dance studio.", axis(2))
    opened = flagged(alice, "Jon opened a dance studio of his own.", near(2, 0.8, 3), studio)
    row = resolve(alice)
    assert row.outcome == "ok" and row.counts.get("new", 0) == 0 and row.counts.get("merged", 0) == 0
    assert row.counts["left_for_review"] == 2
    for note in (photo, opened):
        note.refresh_from_db()
        assert note.is_active and pending(note)  # a person decides
        waiting = Pair.objects.get(newer=note)
        assert waiting.guess and waiting.reason  # with the machine's guess and why, in words
    assert not NoteEvent.objects.filter(action="flag", after__op="close_pair").exists()
