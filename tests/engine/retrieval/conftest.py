"""Notes with hand-placed vectors, so a test can say "at 60°" and mean cosine 0.5.

Notes are written as rows with their embedding already set and indexed through
the real indexer; queries pass ``query_vector`` so no model decides the geometry.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from engine import runtime
from engine.index.embeddings import to_bytes
from engine.index.store import Hit, VectorStore
from engine.index_sync import indexer
from engine.text import content_hash
from memories.models import Agent, Link, Note


def axis(i: int) -> np.ndarray:
    v = np.zeros(runtime.embedder().dimension, dtype=np.float32)
    v[i] = 1.0
    return v


def at_angle(degrees: float) -> np.ndarray:
    """A unit vector at ``degrees`` from axis 0 (the query direction used by the tests)."""
    r = math.radians(degrees)
    return (math.cos(r) * axis(0) + math.sin(r) * axis(1)).astype(np.float32)


QUERY = axis(0)


def put(agent: Agent, content: str, vector: np.ndarray, **fields) -> Note:
    """A note of ``agent`` with this exact vector, indexed."""
    values = {"agent_id": agent.pk, "owner": agent.pk, "readers": [agent.pk], "writers": [agent.pk]}
    values.update(fields)
    note = Note.objects.create(
        content=content,
        content_hash=content_hash(content),
        embedding=to_bytes(vector),
        embedding_model=runtime.embedder().model_name,
        **values,
    )
    indexer.apply([note])
    return note


def link(a: Note, b: Note) -> None:
    Link.objects.create(source=a, target=b)


class ScriptedDense:
    """The real store, except that the dense leg returns a fixed list (as the seed's tests did)."""

    def __init__(self, real: VectorStore, dense: Sequence[tuple[Note, float]]) -> None:
        self.real = real
        self.dense = [Hit(str(n.pk), score) for n, score in dense]

    def query_dense(self, collection, vector, flt, limit):
        return self.dense[:limit]

    query_legs = VectorStore.query_legs  # both legs through the two methods here, not the real store's one call

    def __getattr__(self, name):
        return getattr(self.real, name)


class RecordingStore:
    """The real store, remembering the filter and the pool size each leg was queried with."""

    def __init__(self, real: VectorStore) -> None:
        self.real = real
        self.filters: dict[str, list] = {"dense": [], "sparse": []}
        self.limits: dict[str, list[int]] = {"dense": [], "sparse": []}

    def __getattr__(self, name):
        return getattr(self.real, name)

    query_legs = VectorStore.query_legs  # both legs through the two methods here

    def query_dense(self, collection, vector, flt, limit):
        self.filters["dense"].append(flt)
        self.limits["dense"].append(limit)
        return self.real.query_dense(collection, vector, flt, limit)

    def query_sparse(self, collection, vector, flt, limit):
        self.filters["sparse"].append(flt)
        self.limits["sparse"].append(limit)
        return self.real.query_sparse(collection, vector, flt, limit)


@pytest.fixture
def swap_store():
    """Put a wrapper in front of the test's store for the rest of the test."""
    swapped = []

    def swap(wrapper):
        swapped.append(runtime.set_store(wrapper))
        return wrapper

    yield swap
    if swapped:
        runtime.set_store(swapped[0])
