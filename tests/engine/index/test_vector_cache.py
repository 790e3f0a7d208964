"""One text, one embedding: the in-process vector cache."""

from __future__ import annotations

import numpy as np
import pytest

from engine import runtime
from engine.index.vector_cache import VectorCache


class Counting:
    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.seen.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_each_text_is_computed_once_and_repeats_inside_a_batch_too():
    cache, compute = VectorCache(), Counting()
    first = cache.encode("passage", ["a", "bb", "a"], compute)
    second = cache.encode("passage", ["bb", "ccc"], compute)
    assert compute.seen == [["a", "bb"], ["ccc"]]
    assert first.tolist() == [[1, 1], [2, 1], [1, 1]] and second.tolist() == [[2, 1], [3, 1]]


def test_queries_and_passages_are_cached_apart():
    cache, compute = VectorCache(), Counting()
    cache.encode("passage", ["a"], compute)
    cache.encode("query", ["a"], compute)
    assert compute.seen == [["a"], ["a"]]


def test_the_least_recently_used_text_is_evicted():
    cache, compute = VectorCache(size=2), Counting()
    cache.encode("passage", ["a", "b"], compute)
    cache.encode("passage", ["a"], compute)  # a is now the most recent
    cache.encode("passage", ["c"], compute)  # evicts b
    cache.encode("passage", ["a", "b"], compute)
    assert compute.seen[-1] == ["b"]


def test_a_caller_changing_its_vectors_does_not_change_the_cache():
    cache, compute = VectorCache(), Counting()
    cache.encode("passage", ["a"], compute)[0, 0] = 99
    assert cache.encode("passage", ["a"], compute).tolist() == [[1, 1]]


@pytest.mark.realmodel  # the cache in front of the real MiniLM
def test_the_real_model_embeds_a_repeated_text_once_with_the_same_vector(monkeypatch):
    embedder = runtime.embedder()
    text = "A sentence nobody embedded before in this process: 7f3a."
    calls: list[list[str]] = []
    real = embedder._encode
    monkeypatch.setattr(embedder, "_encode", lambda texts, show=False: calls.append(texts) or real(texts, show))
    one = embedder.encode_one(text)
    again = embedder.encode([text, "Another new sentence: 7f3b."])
    assert calls == [[text], ["Another new sentence: 7f3b."]]
    assert np.array_equal(one, again[0])
    assert np.allclose(again[1], real(["Another new sentence: 7f3b."])[0], atol=1e-6)
