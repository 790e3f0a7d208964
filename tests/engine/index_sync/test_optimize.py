"""The drainer optimizes the embedded index while the server runs: notes written one by one stop
being searched point by point, and the pause that costs never lands on a request in flight."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from engine import pacing
from engine.index.store import IndexPoint, SparseVector
from engine.index_sync import outbox

COLLECTION = "optimize-test"


def _write_one_by_one(store, n: int) -> None:
    """``n`` points in small batches, as the write path adds them (never optimized)."""
    rng = np.random.default_rng(7)
    for start in range(0, n, 250):
        points = []
        for _ in range(min(250, n - start)):
            vector = rng.normal(size=store.dimension).astype(np.float32)
            points.append(
                IndexPoint(
                    str(uuid.uuid4()), vector / np.linalg.norm(vector), SparseVector([1], [1.0]), {"agent_id": "a"}
                )
            )
        store.upsert(COLLECTION, points)


def _dense_indexed(store) -> int:
    # The sparse vectors are indexed as they arrive; the dense ones only by an optimize.
    info = store._shard(COLLECTION).info()
    return info.indexed_vectors_count - info.points_count


@pytest.mark.slow
def test_the_drainer_builds_the_dense_graph_of_notes_written_one_by_one(store):
    store.ensure_collection(COLLECTION)
    _write_one_by_one(store, 8000)  # above Qdrant's indexing threshold (about 6,500 of these vectors)
    assert _dense_indexed(store) == 0
    drainer = outbox.Drainer(optimize_every=3600)
    assert drainer.optimize_when_due()
    assert _dense_indexed(store) == 8000


def test_no_optimize_while_a_request_is_in_flight_and_at_most_once_a_period(store, monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(store, "optimize", lambda: calls.append(1))
    drainer = outbox.Drainer(optimize_every=3600)
    pacing.request_started()
    try:
        assert not drainer.optimize_when_due()
    finally:
        pacing.request_finished()
    assert calls == []
    assert drainer.optimize_when_due()  # the first quiet moment after start-up
    assert not drainer.optimize_when_due()  # then not again within the hour
    assert calls == [1]
    drainer.optimized_at -= 3600
    assert drainer.optimize_when_due()
    assert calls == [1, 1]


def test_optimize_every_zero_switches_it_off(store, monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(store, "optimize", lambda: calls.append(1))
    assert not outbox.Drainer(optimize_every=0).optimize_when_due()
    assert calls == []
