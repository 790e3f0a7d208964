"""Heat (boost and bumps) and the topics filter."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import replace

import pytest
from django.utils import timezone

from bench.pipeline import FULL, Pipeline
from engine.errors import InvalidInput
from engine.retrieval.heat import SCORE_STEP, heat_bonus, seed_boost, tie_step
from engine.retrieval.search import search
from memories.models import Note

from .conftest import QUERY, ScriptedDense, at_angle, link, put

NOW = dt.datetime(2025, 1, 10, tzinfo=dt.UTC)


@pytest.mark.parametrize("step", [SCORE_STEP, tie_step(60)])
def test_the_bonus_grows_with_the_seed_boost_but_stays_below_one_step(step):
    assert tie_step(60) == pytest.approx(1 / 61 - 1 / 62)  # one top rank of one RRF leg
    warm = Note(retrieval_count=1, last_accessed=NOW)
    hot = Note(retrieval_count=20, last_accessed=NOW - dt.timedelta(days=1))
    assert seed_boost(hot, NOW, 0.05) == pytest.approx(0.05 * math.log(21) / 2)  # the seed's formula
    scorching = Note(retrieval_count=10**9, last_accessed=NOW)
    bonuses = [heat_bonus(n, NOW, w, step) for n in (warm, hot, scorching) for w in (0.05, 10.0)]
    assert all(0 < b < step for b in bonuses)
    assert heat_bonus(warm, NOW, 0.05, step) < heat_bonus(hot, NOW, 0.05, step)


def test_heat_is_coarse_so_a_hub_retrieved_1000_times_ties_with_a_note_retrieved_80_times():
    hub, answer = Note(retrieval_count=1000, last_accessed=NOW), Note(retrieval_count=80, last_accessed=NOW)
    assert heat_bonus(hub, NOW, 0.05) == heat_bonus(answer, NOW, 0.05) > 0


def test_a_never_retrieved_note_gets_no_heat():
    assert heat_bonus(Note(retrieval_count=0, created_at=NOW), NOW, 0.05) == 0.0


def test_age_counts_from_creation_when_never_accessed():
    note = Note(retrieval_count=3, created_at=NOW - dt.timedelta(days=9))
    assert seed_boost(note, NOW, 0.05) == pytest.approx(0.05 * math.log(4) / 10)


def test_knowledge_notes_and_weight_zero_get_no_heat():
    note = Note(retrieval_count=50, last_accessed=NOW, note_type=Note.KNOWLEDGE)
    assert heat_bonus(note, NOW, 0.05) == 0.0
    assert heat_bonus(Note(retrieval_count=50, last_accessed=NOW), NOW, 0.0) == 0.0


def twins(alice, swap_store, any_store):
    """Two notes the fusion scores exactly alike: the same words (so the same BM25 score) and the
    same dense score, cold listed first by the dense leg.

    Without heat the tie goes to the dense leg's order (cold); heat may decide it.
    """
    cold = put(alice, "Twin note about the harbour.", at_angle(20))
    hot = put(alice, "The twin note about harbour.", at_angle(20))
    swap_store(ScriptedDense(any_store, [(cold, 0.9), (hot, 0.9)]))
    return cold, hot


def test_a_hot_memory_outranks_its_cold_twin(alice, any_store, swap_store):
    cold, hot = twins(alice, swap_store, any_store)
    first = search("harbour", alice, limit=2, heat=False, query_vector=QUERY, explain=True)
    assert first[0].note == cold and first[0].score == pytest.approx(first[1].score)
    Note.objects.filter(pk=hot.pk).update(retrieval_count=1, last_accessed=timezone.now())
    assert search("harbour", alice, limit=1, heat=False, query_vector=QUERY)[0].note == hot


def test_a_hot_memory_never_passes_one_clearly_better(alice, any_store, swap_store):
    # Neither note has the query word: dense alone ranks them. Scaled over the pool (the third
    # note is its floor) better is 1.0 and hot 0.9875: a gap of 0.0125, six heat steps.
    better = put(alice, "The ferry times for the weekend.", at_angle(20))
    hot = put(alice, "A note that was asked about very often.", at_angle(20))
    floor = put(alice, "Something else entirely.", at_angle(20))
    swap_store(ScriptedDense(any_store, [(better, 0.9), (hot, 0.895), (floor, 0.5)]))
    Note.objects.filter(pk=hot.pk).update(retrieval_count=10**6, last_accessed=timezone.now())
    results = search("harbour", alice, limit=2, heat=False, query_vector=QUERY)
    assert [r.note for r in results] == [better, hot]


def test_a_hot_knowledge_note_does_not_outrank_its_cold_twin(alice, any_store, swap_store):
    cold, hot = twins(alice, swap_store, any_store)
    Note.objects.filter(pk=hot.pk).update(retrieval_count=30, last_accessed=timezone.now(), note_type="knowledge")
    assert search("harbour", alice, limit=1, heat=False, query_vector=QUERY)[0].note == cold


def test_the_boost_can_be_switched_off_for_ablations(alice, any_store, swap_store):
    cold, hot = twins(alice, swap_store, any_store)
    Note.objects.filter(pk=hot.pk).update(retrieval_count=30, last_accessed=timezone.now())
    plain = Pipeline(heat_boost=False)
    assert search("harbour", alice, limit=1, heat=False, ranking=plain, query_vector=QUERY)[0].note == cold


def test_only_returned_matches_are_heated(alice, any_store):
    top = put(alice, "Top note about the harbour.", at_angle(0))
    below = put(alice, "Lower note about the harbour.", at_angle(40))
    linked = put(alice, "Linked note on sailing.", at_angle(30))
    link(top, linked)
    # The walk's rule; without the lift, which would rank the linked note a match (test_link_lift.py).
    no_lift = replace(FULL, link_lift=0.0)
    results = search("harbour", alice, limit=1, query_vector=QUERY, ranking=no_lift)
    assert [r.via for r in results] == ["match", "link"]
    counts = dict(Note.objects.values_list("pk", "retrieval_count"))
    assert (counts[top.pk], counts[below.pk], counts[linked.pk]) == (1, 0, 0)
    assert Note.objects.get(pk=top.pk).last_accessed is not None


def test_heat_false_leaves_the_counters_alone(alice, any_store):
    top = put(alice, "Top note about the harbour.", at_angle(0))
    search("harbour", alice, heat=False, query_vector=QUERY)
    assert Note.objects.get(pk=top.pk).retrieval_count == 0


@pytest.fixture
def topical(alice, any_store):
    return {
        "both": put(
            alice, "Knowledge on Rust and Qdrant.", at_angle(5), note_type="knowledge", topics=["Rust", "Qdrant"]
        ),
        "rust": put(alice, "Knowledge on Rust alone.", at_angle(0), note_type="knowledge", topics=["rust"]),
        "memory": put(alice, "A memory of the Rust meetup.", at_angle(10)),
    }


def test_knowledge_notes_must_carry_every_requested_topic(alice, topical):
    results = search("rust", alice, limit=10, topics_filter=["RUST", "qdrant"], query_vector=QUERY)
    assert {r.note for r in results} == {topical["both"], topical["memory"]}


def test_the_topics_filter_applies_before_the_top_k_cut(alice, topical):
    # The best match lacks the topic; the filter must not eat the only slot.
    results = search("rust", alice, limit=1, topics_filter=["qdrant"], query_vector=QUERY)
    assert [r.note for r in results] == [topical["both"]]


def test_the_topics_filter_rechecks_the_database(alice, topical):
    Note.objects.filter(pk=topical["both"].pk).update(topics=["rust"], index_dirty=False)
    results = search("rust", alice, limit=10, topics_filter=["qdrant"], query_vector=QUERY)
    assert {r.note for r in results} == {topical["memory"]}


@pytest.mark.parametrize("bad", ["rust", [""], [3]])
def test_a_malformed_topics_filter_is_rejected(alice, any_store, bad):
    with pytest.raises(InvalidInput):
        search("rust", alice, topics_filter=bad)


@pytest.mark.parametrize("limit", [0, 101, "5"])
def test_a_limit_out_of_range_is_rejected(alice, any_store, limit):
    with pytest.raises(InvalidInput):
        search("rust", alice, limit=limit)


def test_a_query_of_only_function_words_still_searches_lexically(alice, store, swap_store):
    note = put(alice, "What is it that you were there for?", at_angle(80))
    swap_store(ScriptedDense(store, []))  # only BM25 can find anything now
    assert note in [r.note for r in search("what were you there for", alice, query_vector=QUERY)]
