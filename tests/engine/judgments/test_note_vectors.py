"""The note models' E5 vectors: cached by text, and a call larger than the cache still answers in full."""

from __future__ import annotations

import numpy as np

from engine.judgments import note_vectors


def test_a_call_with_more_texts_than_the_cache_holds_returns_every_row(monkeypatch):
    monkeypatch.setattr(note_vectors, "CACHE", 2)
    monkeypatch.setattr(note_vectors, "_cache", note_vectors.OrderedDict())
    texts = ["I live in Leeds.", "我住在北京。", "Mia is 7.", "I live in Leeds."]
    rows = note_vectors.vectors(texts)
    assert rows.shape == (4, note_vectors.DIMENSIONS) and len(note_vectors._cache) == 2
    assert np.allclose(rows[0], rows[3]) and not np.allclose(rows[0], rows[1])
    again = note_vectors.vectors(["Mia is 7."])  # still cached: the same row, not embedded again
    assert np.allclose(again[0], rows[2])
