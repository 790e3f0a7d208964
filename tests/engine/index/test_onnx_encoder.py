"""MiniLM through ONNX Runtime: the same vectors as PyTorch, or not used at all."""

from __future__ import annotations

import os

import numpy as np
import pytest

from engine.index import onnx_encoder
from engine.index.embeddings import DEFAULT_MODEL, ONNX_BATCH, _resolve, get_embedder

pytestmark = pytest.mark.realmodel

TEXTS = [
    "When did Caroline go to the LGBTQ support group?",
    "  Melanie: Thanks!\n",
    "Jon: I lost my job as a banker yesterday, so I'm going to start my own dance studio.",
    "我们周末去公园散步，然后在湖边吃了午饭。",
    "Mel: " + "very " * 400 + "long",  # past the 256-token limit: truncated the same way
]


@pytest.fixture(scope="module")
def embedder():
    pytest.importorskip("onnxruntime")
    emb = get_embedder(DEFAULT_MODEL)  # module scope: before the per-test model switch
    emb._load()
    if emb._onnx is None:
        pytest.fail("ONNX Runtime is installed but the default model did not take it")
    return emb


def test_short_inputs_give_the_pytorch_vectors_within_a_tolerance(embedder):
    assert embedder._onnx is not None
    torch_vectors = embedder._model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    one_by_one = np.vstack([embedder._onnx.encode([t]) for t in TEXTS])
    batched = embedder._onnx.encode(TEXTS)  # padding must not move a vector either
    assert np.abs(one_by_one - torch_vectors).max() < 1e-5
    assert np.abs(batched - torch_vectors).max() < 1e-5
    assert np.allclose(np.linalg.norm(one_by_one, axis=1), 1.0, atol=1e-5)


def test_every_batch_goes_to_onnx_in_chunks_once_the_graph_is_verified(embedder, monkeypatch):
    # ONNX Runtime is faster than PyTorch at every batch size here, and a server that needs
    # PyTorch for a conversation waits ~6 s for its import before the first write.
    calls: list[tuple[str, int]] = []
    onnx_encode, torch_encode = embedder._onnx.encode, embedder._model.encode
    monkeypatch.setattr(
        embedder._onnx, "encode", lambda texts: calls.append(("onnx", len(texts))) or onnx_encode(texts)
    )
    monkeypatch.setattr(
        embedder._model, "encode", lambda texts, **kw: calls.append(("torch", len(texts))) or torch_encode(texts, **kw)
    )
    embedder.encode(["a short text only this test embeds"])
    vectors = embedder.encode([f"text {i} of a batch only this test embeds" for i in range(ONNX_BATCH + 3)])
    assert calls == [("onnx", 1), ("onnx", ONNX_BATCH), ("onnx", 3)]
    assert vectors.shape == (ONNX_BATCH + 3, 384)
    alone = torch_encode(["text 33 of a batch only this test embeds"], normalize_embeddings=True)
    assert np.abs(vectors[33] - alone[0]).max() < 1e-5  # the chunks keep the texts' order


def test_a_graph_that_differs_from_pytorch_is_not_used(embedder, monkeypatch):
    monkeypatch.setattr(onnx_encoder, "TOLERANCE", -1.0)  # nothing can be that close
    assert onnx_encoder.load(embedder._model, _resolve(embedder.model_name)) is None


def test_a_stack_the_export_does_not_reproduce_is_not_used(embedder):
    class NotMeanPooling:
        pooling_mode = "cls"

    stack = [embedder._model[0], NotMeanPooling()]
    assert onnx_encoder._plain_stack(stack) is False
    assert onnx_encoder._plain_stack(list(embedder._model)) is True


def test_a_first_export_is_used_and_warns_nobody(embedder, tmp_path, monkeypatch, recwarn):
    # Whoever starts the service first should not read the tracer's warnings about constants: the
    # graph is checked against PyTorch on probes of other lengths before it is used.
    monkeypatch.setenv("AMEM_ONNX_CACHE", str(tmp_path))
    encoder = onnx_encoder.load(embedder._model, _resolve(embedder.model_name))
    assert encoder is not None
    assert list(tmp_path.glob("*.onnx")), "the graph was not exported into the cache"
    # A ResourceWarning is the garbage collector closing some earlier test's socket mid-export
    # (seen once in CI), not something the export says.
    said = [f"{w.category.__name__}: {w.message}" for w in recwarn.list if not issubclass(w.category, ResourceWarning)]
    assert said == []


def test_one_graph_per_model_whichever_checkout_holds_its_weights(tmp_path, monkeypatch):
    monkeypatch.setenv("AMEM_ONNX_CACHE", str(tmp_path / "cache"))
    weights = bytes(range(256)) * 9000  # > 2 MiB: start and end sampled
    first, second, other = (tmp_path / name / "all-MiniLM-L6-v2" for name in ("venv-a", "venv-b", "venv-c"))
    for folder, content in ((first, weights), (second, weights), (other, weights[:-1] + b"\x00")):
        folder.mkdir(parents=True)
        (folder / "model.safetensors").write_bytes(content)
    os.utime(second / "model.safetensors", (1, 1))  # another install time
    assert onnx_encoder._graph_path(str(first)) == onnx_encoder._graph_path(str(second))
    assert onnx_encoder._graph_path(str(first)) != onnx_encoder._graph_path(str(other))


def test_a_later_start_serves_short_inputs_without_pytorch_and_the_same_vectors(embedder, tmp_path):
    import json
    import subprocess
    import sys

    # The module fixture loaded PyTorch and verified the graph: that recorded its probe vectors.
    location = _resolve(DEFAULT_MODEL)
    assert onnx_encoder._graph_path(location).with_suffix(".verified").is_file()
    script = (
        "import json, sys\n"
        "from engine.index.embeddings import get_embedder\n"
        f"e = get_embedder({DEFAULT_MODEL!r})\n"
        f"vectors = e.encode({TEXTS!r})\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'dimension': e.dimension, 'vectors': vectors.tolist()}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["torch"] is False and answer["dimension"] == 384
    torch_vectors = embedder._model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    assert np.abs(np.asarray(answer["vectors"]) - torch_vectors).max() < 1e-5


def test_a_record_that_does_not_match_is_not_used(embedder, tmp_path, monkeypatch):
    location = _resolve(DEFAULT_MODEL)
    graph = onnx_encoder._graph_path(location)
    record = graph.with_suffix(".verified").read_text()
    monkeypatch.setenv("AMEM_ONNX_CACHE", str(tmp_path))
    (tmp_path / graph.name).symlink_to(graph)
    forged = record.replace("0.", "0.5", 1)  # one probe coordinate moved
    (tmp_path / graph.name).with_suffix(".verified").write_text(forged)
    assert onnx_encoder.load_verified(location) is None


def test_queries_go_through_the_8_bit_graph_close_to_the_float_one(embedder, monkeypatch):
    monkeypatch.delenv("AMEM_QUERY_INT8", raising=False)
    embedder._tried_query, embedder._query_onnx = False, None
    queries = ["When did Caroline go to the LGBTQ support group?", "What did Mel paint last week?"]
    as_queries = embedder.encode_queries(queries)
    assert embedder._query_onnx is not None, "the 8-bit query graph was not taken"
    as_documents = embedder.encode(queries)
    agreement = np.sum(as_queries * as_documents, axis=1)
    assert agreement.min() >= onnx_encoder.QUERY_AGREEMENT
    assert not np.array_equal(as_queries, as_documents)  # the 8-bit graph answered, not the float one
    assert np.allclose(np.linalg.norm(as_queries, axis=1), 1.0, atol=1e-5)


def test_an_8_bit_graph_that_strays_from_the_float_one_is_not_used(embedder, monkeypatch):
    monkeypatch.setattr(onnx_encoder, "QUERY_AGREEMENT", 1.01)  # no cosine reaches it
    assert onnx_encoder.load_query_encoder(embedder._onnx, _resolve(embedder.model_name)) is None


def test_amem_query_int8_0_embeds_queries_as_documents(embedder, monkeypatch):
    monkeypatch.setenv("AMEM_QUERY_INT8", "0")
    embedder._tried_query, embedder._query_onnx = False, None
    query = ["a query only this test embeds"]
    assert np.array_equal(embedder.encode_queries(query), embedder.encode(query))
    assert embedder._query_onnx is None
