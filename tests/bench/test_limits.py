"""The benchmark searches once per pool: cut-offs sharing a pool share one search."""

from __future__ import annotations

from bench.evaluate import FULL, search_limits, variants


def test_cut_offs_that_share_a_pool_share_the_largest_search():
    rows = {v.key: v for v in variants(FULL, link_share=True)}
    ks = (1, 5, 10, 20)
    # Pools of 20 for limits up to 10, 40 for 20.
    assert search_limits(ks, rows["full"], FULL) == {1: 10, 5: 10, 10: 10, 20: 20}
    assert search_limits(ks, rows["heated"], FULL) == {1: 10, 5: 10, 10: 10, 20: 20}
    # Probes that heat change the next search, and link slots change the matches asked for.
    assert search_limits(ks, rows["heat"], FULL) == {1: 1, 5: 5, 10: 10, 20: 20}
    assert search_limits(ks, rows["share"], FULL) == {1: 1, 5: 3, 10: 5, 20: 12}
