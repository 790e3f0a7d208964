"""Heat (boost and bumps) and the topics filter."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from django.utils import timezone

from engine.errors import InvalidInput
from engine.retrieval.heat import heat_factor
from engine.retrieval.search import Pipeline, search
from memories.models import Note

from .conftest import QUERY, ScriptedDense, at_angle, link, put

NOW = dt.datetime(2025, 1, 10, tzinfo=dt.UTC)


def test_the_heat_factor_follows_the_formula():
    note = Note(retrieval_count=20, last_accessed=NOW - dt.timedelta(days=1))
    assert heat_factor(note, NOW, 0.05) == pytest.approx(1 + 0.05 * math.log(21) / 2)


def test_a_never_retrieved_note_gets_no_heat():
    assert heat_factor(Note(retrieval_count=0, created_at=NOW), NOW, 0.05) == 1.0


def test_age_counts_from_creation_when_never_accessed():
    note = Note(retrieval_count=3, created_at=NOW - dt.timedelta(days=9))
    assert heat_factor(note, NOW, 0.05) == pytest.approx(1 + 0.05 * math.log(4) / 10)


def test_knowledge_notes_get_no_heat():
    note = Note(retrieval_count=50, last_accessed=NOW, note_type=Note.KNOWLEDGE)
    assert heat_factor(note, NOW, 0.05) == 1.0


def twins(alice):
    """Two notes the legs cannot tell apart except by order: a heated one wins only through heat."""
    cold = put(alice, "Twin note about the harbour.", at_angle(20))
    hot = put(alice, "Twin note about the harbour!", at_angle(20.5))
    return cold, hot


def test_a_hot_memory_outranks_its_cold_twin(alice, any_store):
    cold, hot = twins(alice)
    assert search("harbour", alice, limit=1, heat=False, query_vector=QUERY)[0].note == cold
    Note.objects.filter(pk=hot.pk).update(retrieval_count=30, last_accessed=timezone.now())
    assert search("harbour", alice, limit=1, heat=False, query_vector=QUERY)[0].note == hot


def test_a_hot_knowledge_note_does_not_outrank_its_cold_twin(alice, any_store):
    cold, hot = twins(alice)
    Note.objects.filter(pk=hot.pk).update(retrieval_count=30, last_accessed=timezone.now(), note_type="knowledge")
    assert search("harbour", alice, limit=1, heat=False, query_vector=QUERY)[0].note == cold


def test_the_boost_can_be_switched_off_for_ablations(alice, any_store):
    cold, hot = twins(alice)
    Note.objects.filter(pk=hot.pk).update(retrieval_count=30, last_accessed=timezone.now())
    plain = Pipeline(heat_boost=False)
    assert search("harbour", alice, limit=1, heat=False, pipeline=plain, query_vector=QUERY)[0].note == cold


def test_only_returned_matches_are_heated(alice, any_store):
    top = put(alice, "Top note about the harbour.", at_angle(0))
    below = put(alice, "Lower note about the harbour.", at_angle(40))
    linked = put(alice, "Linked note on sailing.", at_angle(30))
    link(top, linked)
    results = search("harbour", alice, limit=1, query_vector=QUERY)
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
