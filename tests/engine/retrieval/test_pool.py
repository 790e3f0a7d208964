"""How deep each leg is asked: min(max(4·limit, 40), visible), the design's 4·limit with a floor."""

from __future__ import annotations

import pytest

from engine.retrieval.search import RANKING, search
from tests.engine.retrieval.conftest import QUERY, RecordingStore, at_angle, put


@pytest.mark.parametrize(("limit", "pool"), [(1, 40), (10, 40), (11, 44), (30, 120), (100, 400)])
def test_each_leg_is_asked_for_four_times_the_limit_and_at_least_forty(alice, store, swap_store, limit, pool):
    put(alice, "A note on the harbour lights.", at_angle(0))
    recorder = swap_store(RecordingStore(store))
    search("harbour", alice, limit=limit, heat=False, query_vector=QUERY)
    assert recorder.limits == {"dense": [pool], "sparse": [pool]}


def test_the_pool_never_exceeds_what_is_visible():
    assert RANKING.pool(10, 7) == 7
    assert RANKING.pool(50) == 200  # no cap when the caller does not know the count
    assert RANKING.pool(50, 10_000) == 200
