"""The BM25 leg on its own: it indexes the context (the one recipe) and meets word forms through stems."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.pipeline import FULL
from engine.index.store import CONTEXT_TERM_WEIGHT, bm25_document_vector, term_id
from engine.retrieval.search import search
from engine.write.pipeline import add_episodic

BM25_ONLY = replace(FULL, dense=False, heat_boost=False)


def sources(results) -> set[str]:
    return {s for r in results for s in r.note.sources}


def test_a_word_only_in_the_context_finds_the_note(alice, store):
    add_episodic("Behind the bakery on Elm street.", alice, sources=["answer"], context="Where did you park the van?")
    add_episodic("The bakery opens at seven every morning.", alice, sources=["other"])
    assert sources(search("van", alice, limit=5, heat=False, links=False, ranking=BM25_ONLY)) == {"answer"}


def test_another_form_of_a_word_finds_the_note(alice, store):
    add_episodic("Melanie finished three paintings of the lake.", alice, sources=["paint"])
    add_episodic("Caroline went to a support group meeting.", alice, sources=["group"])
    assert sources(search("did she paint", alice, limit=5, heat=False, links=False, ranking=BM25_ONLY)) == {"paint"}


def test_a_note_that_says_the_words_itself_outranks_one_whose_context_says_them(alice, store):
    # Without the context's lighter weight the short reply, whose context repeats the query's
    # words, scored higher: its text is shorter. A context term counts 0.3 (bm25_document_vector).
    add_episodic(
        "At last we all went to the harbour festival with the children and our friends.",
        alice,
        sources=["says it"],
    )
    add_episodic("Yes, we did go.", alice, sources=["reply"], context="The harbour festival?")
    results = search("harbour festival", alice, limit=2, heat=False, links=False, ranking=BM25_ONLY)
    assert [s for r in results for s in r.note.sources] == ["says it", "reply"]


def test_context_terms_count_a_fraction_in_tf_and_in_length_never_more_than_the_note():
    """A short answer after a long question is not weighed as a long note."""
    vector = bm25_document_vector(["harbour"], k1=1.5, b=0.75, avg_len=10, context=["harbour", "festival"])
    weights = dict(zip(vector.indices, vector.values, strict=True))
    norm = 1.5 * (0.25 + 0.75 * (1 + 2 * CONTEXT_TERM_WEIGHT) / 10)
    tf = 1 + CONTEXT_TERM_WEIGHT
    assert weights[term_id("harbour")] == pytest.approx(tf * 2.5 / (tf + norm))
    assert weights[term_id("festival")] == pytest.approx(CONTEXT_TERM_WEIGHT * 2.5 / (CONTEXT_TERM_WEIGHT + norm))
    long_question = [f"w{i}" for i in range(140)]
    reply = bm25_document_vector(["yes", "sunset"], k1=1.5, b=0.75, avg_len=10, context=long_question)
    weights = dict(zip(reply.indices, reply.values, strict=True))
    capped = 1.5 * (0.25 + 0.75 * (2 + 2) / 10)  # 2 own terms, and at most as many from the context
    assert weights[term_id("sunset")] == pytest.approx(2.5 / (1 + capped))


def test_a_han_term_said_twice_gains_more_than_another_script_s_but_once_weighs_the_same():
    """A Han word comes out of the full mode and the bigrams alike (tokenize.han_terms), so its
    count is saturated later (HAN_SATURATION); at one mention in a note of average length every
    term weighs 1."""

    def weights(tokens: list[str]) -> dict[int, float]:
        vector = bm25_document_vector(tokens, k1=1.5, b=0.75, avg_len=len(tokens))
        return dict(zip(vector.indices, vector.values, strict=True))

    once = weights(["游泳", "dog", "walk", "park"])
    assert once[term_id("游泳")] == pytest.approx(1.0)
    assert once[term_id("dog")] == pytest.approx(1.0)
    twice = weights(["游泳", "游泳", "dog", "dog"])
    assert twice[term_id("游泳")] / once[term_id("游泳")] > 1.5
    assert twice[term_id("dog")] / once[term_id("dog")] < 1.5
