"""Named dates: matches from the day or month a query names rank first (issue 14, round 3)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from engine.retrieval.dates import named_windows, within
from engine.retrieval.search import FULL, search

from .conftest import QUERY, at_angle, put

pytestmark = pytest.mark.django_db

D = dt.date


@pytest.mark.parametrize(
    ("query", "windows"),
    [
        ("What did Gina find on 1 February, 2023?", [(D(2023, 1, 31), D(2023, 2, 2))]),
        ("What did Audrey set up on June 26, 2023?", [(D(2023, 6, 25), D(2023, 6, 27))]),
        ("What news did Evan share on 9th December 2023?", [(D(2023, 12, 8), D(2023, 12, 10))]),
        ("Plans made on 2023-07-07", [(D(2023, 7, 6), D(2023, 7, 8))]),
        ("2023年7月7日做了什么", [(D(2023, 7, 6), D(2023, 7, 8))]),
        ("What did John host in May 2023?", [(D(2023, 5, 1), D(2023, 5, 31))]),
        ("Trips in Sept. 2022 and Dec 2022", [(D(2022, 9, 1), D(2022, 9, 30)), (D(2022, 12, 1), D(2022, 12, 31))]),
        ("2024年2月的事", [(D(2024, 2, 1), D(2024, 2, 29))]),
        # A day wins over the month it falls in; a bare year, a relative date or no date: nothing.
        ("On 3 May 2023, in May 2023", [(D(2023, 5, 2), D(2023, 5, 4))]),
        ("What did Evan do in 2023?", []),
        ("What did Joanna finish last Friday?", []),
        ("May I ask what you painted?", []),
        ("Born on 31 February 2023", []),  # no such day
        ("Moved in month 13 of 2023: 2023-13-01", []),
    ],
)
def test_explicit_days_and_months_are_found(query, windows):
    assert named_windows(query) == windows


def test_within_compares_the_day():
    windows = [(D(2023, 5, 1), D(2023, 5, 31))]
    assert within(dt.datetime(2023, 5, 31, 23, 59, tzinfo=dt.UTC), windows)
    assert not within(dt.datetime(2023, 6, 1, 0, 0, tzinfo=dt.UTC), windows)


def test_a_match_from_the_named_day_ranks_first(alice, store):
    may = dt.datetime(2023, 5, 8, 14, 0, tzinfo=dt.UTC)
    june = dt.datetime(2023, 6, 20, 14, 0, tzinfo=dt.UTC)
    # The better match in words and meaning was said in June; the one asked about, in May.
    said_in_june = put(alice, "We went to the harbour festival, the harbour was full.", at_angle(5), created_at=june)
    said_in_may = put(alice, "The harbour trip was lovely.", at_angle(30), created_at=may)
    query = "What happened at the harbour on 8 May 2023?"
    plain = replace(FULL, date_boost=0.0)
    assert search(query, alice, limit=1, heat=False, query_vector=QUERY, pipeline=plain)[0].note == said_in_june
    results = search(query, alice, limit=2, heat=False, query_vector=QUERY, explain=True)
    assert [r.note for r in results] == [said_in_may, said_in_june]
    assert results[0].explain["date"] == 1.0 and results[1].explain["date"] == 0.0


def test_a_named_date_with_no_note_changes_nothing(alice, store):
    june = dt.datetime(2023, 6, 20, tzinfo=dt.UTC)
    a = put(alice, "The harbour festival.", at_angle(5), created_at=june)
    b = put(alice, "A harbour trip.", at_angle(30), created_at=june)
    results = search("harbour on 8 May 2023", alice, limit=2, heat=False, query_vector=QUERY)
    assert [r.note for r in results] == [a, b]
