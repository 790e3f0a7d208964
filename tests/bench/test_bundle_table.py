"""bench/bundle.py's table: every row has a cell under every header."""

from __future__ import annotations

from bench.bundle import CEILING_CUTS, Tally, ceiling_markdown, markdown


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


def test_ceiling_table_averages_each_cut_over_its_questions():
    ceiling = {(cut, "1"): [0.0, 1.0] for cut in CEILING_CUTS} | {(cut, "4"): [1.0] for cut in CEILING_CUTS}
    header, rule, *rows = ceiling_markdown(ceiling, ["1", "2", "4"]).splitlines()
    assert len(rows) == len(CEILING_CUTS)
    assert all(row.count("|") == header.count("|") == rule.count("|") for row in rows)
    # cat 2 has no questions: shown as nan, not as 0; "all" weighs questions, not categories
    assert rows[0] == "| 10 | 0.500 | nan | 1.000 | **0.667** |"
