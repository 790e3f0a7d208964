"""Same-day merge and nightly consolidation: thresholds, caps, grouping, the merge itself, idempotence."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from engine import runtime
from engine.maintenance import merge
from engine.maintenance.runner import Gate, run_step
from memories.models import SHARED_AGENT, Link, Note, NoteEvent, Pair
from tests.engine.maintenance.conftest import axis, near, put, wrote

FIELDS = {"keywords": ["merged"], "tags": ["memory"], "context": "A merged note.", "category": "Personal"}


def script(provider, role: str, value, times: int = 30) -> None:
    for _ in range(times):
        provider.reply_json(value, role=role)


@pytest.fixture
def merging(provider):
    """The model merges every pair it is asked about (A's text, then B's), fields for every construction."""
    script(provider, "construct", FIELDS)
    return provider


def agree(provider, merged: str) -> None:
    provider.reply_json({"should_merge": True, "merged": merged}, role="should_merge")


def refuse(provider, times: int = 30) -> None:
    script(provider, "should_merge", {"should_merge": False}, times)


def pair(agent, k: int, cosine: float, texts: tuple[str, str] | None = None, **fields) -> tuple[Note, Note]:
    """Two notes at ``cosine``, orthogonal to every other pair (axes 2k and 2k+1)."""
    a_text, b_text = texts or (f"Pair {k}: the first note of this pair.", f"Pair {k}: the second, longer note of it.")
    return put(agent, a_text, axis(2 * k), **fields), put(agent, b_text, near(2 * k, cosine, 2 * k + 1), **fields)


def fillers(agent, n: int, **fields) -> list[Note]:
    return [put(agent, f"Unrelated filler note number {i}.", axis(200 + i), **fields) for i in range(n)]


def asked(provider) -> list[str]:
    return [r.prompt for r in provider.requests_for("should_merge")]


# --- same-day merge -------------------------------------------------------------------


def test_same_day_needs_five_notes_written_today(alice, merging):
    yesterday = timezone.now() - timedelta(days=1)
    pair(alice, 0, 0.95)
    fillers(alice, 2)
    fillers(alice, 3, created_at=yesterday)
    row = run_step("same_day_merge", alice)
    assert row.counts == {"notes_today": 4} and asked(merging) == []
    put(alice, "One more note written today, the fifth.", axis(250))
    agree(merging, "Pair 0: both notes merged into one text.")
    row = run_step("same_day_merge", alice)
    assert row.counts["merged"] == 1 and Note.objects.filter(is_active=True).count() == 7


def test_same_day_threshold_is_080_inclusive(alice, merging):
    _at, _ = pair(alice, 0, 0.80)
    pair(alice, 1, 0.7999)
    fillers(alice, 3)
    refuse(merging)
    row = run_step("same_day_merge", alice)
    assert row.counts["pairs"] == 1 and len(asked(merging)) == 1
    assert "Pair 0" in asked(merging)[0]


def test_same_day_judges_the_ten_best_pairs_and_the_rest_next_time(alice, merging):
    sims = [0.99 - 0.01 * k for k in range(12)]  # pair 0 best … pair 11 worst
    for k, sim in enumerate(sims):
        pair(alice, k, sim)
    refuse(merging)
    first = run_step("same_day_merge", alice)
    first_asked = asked(merging)
    assert first.counts["pairs"] == 10 and first.counts["kept_apart"] == 10
    assert all(f"Pair {k}:" in first_asked[k] for k in range(10))
    # The model's "no" is remembered: the next run asks only about the two pairs left over.
    second = run_step("same_day_merge", alice)
    assert second.counts["pairs"] == 2 and len(asked(merging)) == 12
    assert all("Pair 10:" in p or "Pair 11:" in p for p in asked(merging)[10:])
    third = run_step("same_day_merge", alice)
    assert third.counts["pairs"] == 0 and len(asked(merging)) == 12


def test_same_day_leaves_pending_notes_to_their_own_job(alice, merging):
    a, b = pair(alice, 0, 0.95)
    Pair.objects.create(kind=Pair.MERGE, older=a, newer=b, similarity=0.95)
    fillers(alice, 4)
    row = run_step("same_day_merge", alice)
    assert row.counts["pairs"] == 0 and asked(merging) == []


def test_offline_same_day_merges_only_near_duplicates_by_keeping_both_texts(alice):
    close = pair(alice, 0, 0.86, ("Alice's dog is named Rex.", "Alice's dog is named Rex. Rex is a beagle."))
    loose = pair(alice, 1, 0.82)
    fillers(alice, 3)
    row = run_step("same_day_merge", alice)
    assert row.outcome == "ok" and row.counts["merged"] == 1 and row.counts["pairs"] == 1
    winner = Note.objects.get(pk=close[1].pk)
    assert winner.content == "Alice's dog is named Rex. Rex is a beagle." and winner.is_active
    assert not Note.objects.get(pk=close[0].pk).is_active
    assert all(Note.objects.get(pk=n.pk).is_active for n in loose)


# --- nightly consolidation --------------------------------------------------------------


def test_consolidation_threshold_is_075_inclusive_within_one_category(alice, merging):
    pair(alice, 0, 0.75, category="Personal")
    pair(alice, 1, 0.7499, category="Personal")
    across = (
        put(alice, "Pair 2: a project note.", axis(4), category="Project"),
        put(alice, "Pair 2: a personal note.", near(4, 0.95, 5), category="Personal"),
    )
    refuse(merging)
    row = run_step("consolidation", alice)
    assert row.counts["pairs"] == 1 and "Pair 0" in asked(merging)[0]
    assert all(n.is_active for n in across)


def test_consolidation_judges_the_fifteen_best_pairs(alice, merging):
    for k in range(17):
        pair(alice, k, 0.95 - 0.01 * k)
    refuse(merging)
    row = run_step("consolidation", alice)
    assert row.counts["pairs"] == 15 and len(asked(merging)) == 15
    assert not any("Pair 15:" in p or "Pair 16:" in p for p in asked(merging))


def test_consolidation_skips_knowledge_shared_foreign_and_other_subjects(alice, bob, merging):
    pair(alice, 0, 0.95, note_type=Note.KNOWLEDGE)
    pair(alice, 1, 0.95, agent_id=SHARED_AGENT, readers=["*"])
    put(alice, "Pair 2: alice's note.", axis(4))
    put(bob, "Pair 2: bob's note, similar.", near(4, 0.95, 5))
    put(alice, "Pair 3: about sam.", axis(6), subjects=["sam"])
    put(alice, "Pair 3: about alex, similar.", near(6, 0.95, 7), subjects=["alex"])
    row = run_step("consolidation", alice)
    assert row.counts["pairs"] == 0 and asked(merging) == []


def test_a_consolidation_merge_retires_the_loser_and_moves_everything_to_the_winner(alice, bob, merging):
    long_text = "Alice runs the Berlin marathon every September with her sister."
    short = put(
        alice,
        "Alice runs the Berlin marathon.",
        axis(0),
        sources=["s1"],
        retrieval_count=4,
        last_accessed=timezone.now() - timedelta(days=1),
    )
    long = put(
        alice,
        long_text,
        near(0, 0.9, 1),
        sources=["s2"],
        retrieval_count=1,
        last_accessed=timezone.now() - timedelta(days=9),
    )
    friend = put(alice, "Alice's sister is called Maja.", axis(10))
    outsider = put(bob, "Bob cheered at the Berlin marathon.", axis(11))
    Link.objects.create(source=friend, target=short)
    Link.objects.create(source=friend, target=long)  # becomes a duplicate: dropped
    Link.objects.create(source=outsider, target=short)
    Link.objects.create(source=short, target=outsider)
    merged = "Alice runs the Berlin marathon every September with her sister Maja."
    agree(merging, merged)

    row = run_step("consolidation", alice)

    assert row.counts["merged"] == 1
    prompt = asked(merging)[0]
    assert prompt.index(long_text) < prompt.index("Alice runs the Berlin marathon.\n")  # winner first
    long.refresh_from_db()
    short.refresh_from_db()
    assert long.content == merged and long.is_active and long.index_dirty
    assert (long.retrieval_count, long.sources) == (5, ["s2", "s1"])
    assert long.last_accessed == short.last_accessed
    assert (short.is_active, short.merged_into_id, short.index_dirty) == (False, long.pk, True)
    assert list(Link.objects.filter(source=friend).values_list("target", flat=True)) == [long.pk]
    assert Link.objects.filter(source=outsider, target=short).exists()  # bob's note: bob decides
    assert Link.objects.filter(source=long, target=outsider).exists()  # the loser's link, copied
    assert NoteEvent.objects.get(note=short).action == "retire"
    assert set(NoteEvent.objects.filter(note=long).values_list("action", flat=True)) == {"fold", "consolidate"}


def test_consolidation_run_twice_changes_nothing_the_second_time(alice, merging):
    _a, _b = pair(alice, 0, 0.9)
    pair(alice, 1, 0.85)
    agree(merging, "Pair 0: the first and the second note, merged.")
    refuse(merging)
    run_step("consolidation", alice)
    state = list(Note.objects.order_by("pk").values_list("pk", "content", "revision", "is_active"))
    events, calls = NoteEvent.objects.count(), len(merging.requests)
    row = run_step("consolidation", alice)
    assert row.counts["pairs"] == 0 and len(merging.requests) == calls
    assert list(Note.objects.order_by("pk").values_list("pk", "content", "revision", "is_active")) == state
    assert NoteEvent.objects.count() == events


def test_a_pair_kept_apart_is_asked_again_once_one_note_changes(alice, merging):
    _a, b = pair(alice, 0, 0.9)
    refuse(merging)
    run_step("consolidation", alice)
    assert run_step("consolidation", alice).counts["pairs"] == 0
    Note.objects.filter(pk=b.pk).update(content=b.content + " Edited.", revision=2)
    assert run_step("consolidation", alice).counts["pairs"] == 1


def test_a_failed_judgement_is_not_remembered_as_kept_apart(alice, merging):
    pair(alice, 0, 0.9)
    merging.fail(500, role="should_merge")
    first = run_step("consolidation", alice)
    assert first.outcome == "partial" and "kept_apart" not in first.counts
    refuse(merging)
    assert run_step("consolidation", alice).counts["kept_apart"] == 1


def test_a_failure_in_the_middle_of_a_merge_leaves_no_partial_merge(alice, merging, monkeypatch):
    a, b = pair(alice, 0, 0.9, sources=["x"])
    agree(merging, "Pair 0: the first and the second note, merged.")
    real = merge._move_links

    def then_crash(*args, **kwargs):
        real(*args, **kwargs)
        raise RuntimeError("connection lost")

    monkeypatch.setattr(merge, "_move_links", then_crash)
    row = run_step("consolidation", alice)
    assert row.outcome == "failed"
    for note in (a, b):
        fresh = Note.objects.get(pk=note.pk)
        assert (fresh.content, fresh.revision, fresh.is_active, fresh.index_dirty) == (note.content, 1, True, False)
    assert not NoteEvent.objects.exists()


def test_a_write_during_consolidation_stops_it_before_the_next_pair(alice, merging, monkeypatch):
    pair(alice, 0, 0.95)
    pair(alice, 1, 0.9)
    wrote(alice, timezone.now() - timedelta(minutes=5))
    real = runtime.llm().should_merge

    def while_alice_writes(*args, **kwargs):
        wrote(alice)
        return real(*args, **kwargs)

    monkeypatch.setattr(runtime.llm(), "should_merge", while_alice_writes)
    refuse(merging)
    row = run_step("consolidation", alice, gate=Gate(60))
    assert row.outcome == "stopped" and row.counts["kept_apart"] == 1 and len(asked(merging)) == 1
