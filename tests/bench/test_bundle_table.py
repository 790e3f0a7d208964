"""bench/bundle.py's table: every row has a cell under every header."""

from __future__ import annotations

from bench.bundle import Tally, markdown


def test_every_row_fills_the_header():
    tally = Tally()
    for category, share in (("1", 0.5), ("4", 1.0)):
        tally.record(
            {"group": "tune 0-4", "budget": 1000, "category": category, "share": share, "answer_words": 0.5}
            | {"tokens": 990, "seconds": 0.03}
        )
    header, rule, *rows = markdown(tally, [1000], ["1", "2", "3", "4"], ["tune 0-4"]).splitlines()
    assert rows and all(row.count("|") == header.count("|") == rule.count("|") for row in rows)
    assert "answer words" in header and "| **0.750** (2) | 0.500 | 990 / 990 |" in rows[0]
