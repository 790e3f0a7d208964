"""The side-by-side benchmark's own parts: its recall and its embedding endpoint (bench/mem0_side.py)."""

from __future__ import annotations

import base64

import numpy as np
import openai
import pytest

from bench.mem0_side import EmbeddingEndpoint, quantile, recall
from engine.index.embeddings import get_embedder

CONVS = [{"name": "c", "questions": [{"text": "q1", "gold": ["D1:1", "D1:2"]}, {"text": "q2", "gold": ["D2:1"]}]}]


def test_recall_is_the_share_of_gold_in_the_first_k():
    found = {"c": [["D1:2", "D9:9", "D1:1"], ["D3:3", "D2:1"]]}
    assert recall(found, CONVS, 1) == pytest.approx((0.5 + 0.0) / 2)
    assert recall(found, CONVS, 2) == pytest.approx((0.5 + 1.0) / 2)
    assert recall(found, CONVS, 3) == pytest.approx((1.0 + 1.0) / 2)


def test_quantile_picks_from_the_values():
    assert quantile([5.0, 1.0, 3.0], 0.5) == 3.0
    assert quantile([5.0, 1.0, 3.0], 0.95) == 5.0


@pytest.mark.realmodel
@pytest.mark.parametrize("encoding", ["float", "base64"])
def test_the_embedding_endpoint_answers_the_openai_sdk_with_minilm_vectors(encoding):
    endpoint = EmbeddingEndpoint()
    try:
        client = openai.OpenAI(api_key="bench", base_url=endpoint.url, max_retries=0)
        got = client.embeddings.create(input=["Alex drinks filter coffee."], model="m", encoding_format=encoding)
        raw = got.data[0].embedding
        # Asked for explicitly, base64 reaches the caller as sent (the SDK decodes only its own default).
        vector = np.frombuffer(base64.b64decode(raw), dtype=np.float32) if encoding == "base64" else np.array(raw)
    finally:
        endpoint.http.shutdown()
    expected = get_embedder().encode(["Alex drinks filter coffee."])[0]
    assert vector.shape == (384,)
    assert np.allclose(vector, expected, atol=1e-5)


@pytest.mark.realmodel
def test_the_endpoint_answers_a_stores_own_vector_for_its_text_and_embeds_the_rest_as_queries():
    # bench/mem0_local.py: mem0 must hold the vectors amem's store holds, not fresh ones.
    stored = np.zeros(384, dtype=np.float32)
    stored[7] = 1.0
    endpoint = EmbeddingEndpoint({"Alex drinks filter coffee.": stored}, as_queries=True)
    try:
        client = openai.OpenAI(api_key="bench", base_url=endpoint.url, max_retries=0)
        # mem0 stores a text with its runs of spaces collapsed; the vector is found all the same.
        got = client.embeddings.create(input=["Alex  drinks filter coffee.", "What does Alex drink?"], model="m")
    finally:
        endpoint.http.shutdown()
    assert np.allclose(got.data[0].embedding, stored)
    assert np.allclose(got.data[1].embedding, get_embedder().encode_query("What does Alex drink?"), atol=1e-5)
    assert endpoint.embedded == ["What does Alex drink?"]
