"""The simulated nights of bench/curation/rank_real.py open cards as the sweep does."""

from __future__ import annotations

import numpy as np

from bench.curation import rank_real


def store(pairs: list[tuple[str, str]], planted: list[bool]) -> dict:
    rows = [{"older": a, "newer": b} for a, b in pairs]
    return {"rows": rows, "planted": np.array(planted), "true": np.array(planted)}


def test_each_night_opens_the_best_pairs_within_the_budget_and_a_note_once(monkeypatch):
    monkeypatch.setattr(rank_real, "BUDGET", 2)
    monkeypatch.setattr(rank_real, "NIGHTS", 2)
    s = store([("a", "b"), ("a", "c"), ("d", "e"), ("f", "g"), ("h", "i")], [False, True, False, False, True])
    score = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    eligible = np.array([True, True, True, True, False])
    shown = rank_real.nights(s, score, eligible)
    # Night 1: (a,b) then (a,c) waits because "a" has its card; (d,e) fills the budget.
    # Night 2: (a,c), then (f,g); (h,i) is never eligible.
    assert shown == [0, 2, 1, 3]
    got = rank_real.outcome(s, shown)
    assert got["planted"] == 2 and got["planted@10"] == 1 and got["true@10"] == 0.25
