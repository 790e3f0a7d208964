"""How deep each leg is asked: min(max(2·limit, 20), visible) — 2·limit where DESIGN §4 says 4."""

from __future__ import annotations

import pytest

from engine.retrieval.search import dense_pool_size, search
from tests.engine.retrieval.conftest import QUERY, RecordingStore, at_angle, put


@pytest.mark.parametrize(("limit", "pool"), [(1, 20), (10, 20), (11, 22), (30, 60), (100, 200)])
def test_each_leg_is_asked_for_twice_the_limit_and_at_least_twenty(alice, store, swap_store, limit, pool):
    put(alice, "A note on the harbour lights.", at_angle(0))
    recorder = swap_store(RecordingStore(store))
    search("harbour", alice, limit=limit, heat=False, query_vector=QUERY)
    assert recorder.limits == {"dense": [pool], "sparse": [pool]}


def test_the_pool_never_exceeds_what_is_visible():
    assert dense_pool_size(10, 7) == 7
    assert dense_pool_size(50) == 100  # no cap when the caller does not know the count
    assert dense_pool_size(50, 10_000) == 100
