"""Named dates: matches from the day or month a query names rank first (round 3)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest
from django.utils import timezone

from bench.pipeline import FULL
from engine.retrieval.dates import named_windows, overlap, told_windows, within
from engine.retrieval.search import search

from .conftest import QUERY, at_angle, put

pytestmark = pytest.mark.django_db

D = dt.date


EXPLICIT = [
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
    ("What did Joanna finish last Friday?", []),  # no day of the search given: not read
    ("May I ask what you painted?", []),
    ("Born on 31 February 2023", []),  # no such day
    ("Moved in month 13 of 2023: 2023-13-01", []),
]


@pytest.mark.parametrize(("query", "windows"), EXPLICIT)
def test_explicit_days_and_months_are_found(query, windows):
    assert named_windows(query) == windows


MONDAY = D(2026, 11, 30)


RELATIVE = [
    ("What did we decide yesterday?", [(D(2026, 11, 28), D(2026, 11, 30))]),
    ("what did she say last night", [(D(2026, 11, 28), D(2026, 11, 30))]),
    ("the day before yesterday", [(D(2026, 11, 27), D(2026, 11, 29))]),  # not also yesterday
    ("the plan from 3 days ago", [(D(2026, 11, 26), D(2026, 11, 28))]),
    ("two weeks ago", [(D(2026, 11, 13), D(2026, 11, 19))]),  # a week around the day
    ("a month ago", [(D(2026, 10, 24), D(2026, 11, 7))]),
    ("last Friday", [(D(2026, 11, 26), D(2026, 11, 28))]),
    ("last Monday", [(D(2026, 11, 22), D(2026, 11, 24))]),  # on a Monday: a week ago
    ("last week", [(D(2026, 11, 23), D(2026, 11, 29))]),  # the calendar week before
    ("last month", [(D(2026, 10, 1), D(2026, 10, 31))]),
    ("yesterday, or last week", [(D(2026, 11, 28), D(2026, 11, 30))]),  # the day wins
    ("昨天聊了什么", [(D(2026, 11, 28), D(2026, 11, 30))]),
    ("前天", [(D(2026, 11, 27), D(2026, 11, 29))]),
    ("大前天", [(D(2026, 11, 26), D(2026, 11, 28))]),  # not also 前天
    ("十五天前", [(D(2026, 11, 14), D(2026, 11, 16))]),  # fifteen, not five
    ("两周前", [(D(2026, 11, 13), D(2026, 11, 19))]),
    ("上周五", [(D(2026, 11, 26), D(2026, 11, 28))]),  # not also 上周
    ("上个星期天", [(D(2026, 11, 28), D(2026, 11, 30))]),
    ("上周", [(D(2026, 11, 23), D(2026, 11, 29))]),
    ("上个月", [(D(2026, 10, 1), D(2026, 10, 31))]),
    # The query's own time wins; words that only look relative; what is deliberately not read.
    ("What did Joanna finish last Friday on 23 January, 2022?", [(D(2022, 1, 22), D(2022, 1, 24))]),
    ("What did Evan host last week of June 2023?", [(D(2023, 6, 1), D(2023, 6, 30))]),
    ("the last week of the trip", []),
    ("last Friday of the month", []),
    ("我之前天天跑步", []),  # 之前 + 天天, not 前天
    ("三五天前", []),  # "three or five days": no one day
    ("How is the project today?", []),
    ("What happened this week?", []),
    ("三个星期之前", [(D(2026, 11, 6), D(2026, 11, 12))]),
    ("一个月以前", [(D(2026, 10, 24), D(2026, 11, 7))]),
]


@pytest.mark.parametrize(("query", "windows"), RELATIVE)
def test_relative_dates_are_read_against_the_day_of_the_search(query, windows):
    assert named_windows(query, today=MONDAY) == windows


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
    assert search(query, alice, limit=1, heat=False, query_vector=QUERY, ranking=plain)[0].note == said_in_june
    results = search(query, alice, limit=2, heat=False, query_vector=QUERY, explain=True)
    assert [r.note for r in results] == [said_in_may, said_in_june]
    assert results[0].explain["date"] == 1.0 and results[1].explain["date"] == 0.0


def test_a_named_date_with_no_note_changes_nothing(alice, store):
    june = dt.datetime(2023, 6, 20, tzinfo=dt.UTC)
    a = put(alice, "The harbour festival.", at_angle(5), created_at=june)
    b = put(alice, "A harbour trip.", at_angle(30), created_at=june)
    results = search("harbour on 8 May 2023", alice, limit=2, heat=False, query_vector=QUERY)
    assert [r.note for r in results] == [a, b]


def test_a_match_from_yesterday_ranks_first(alice, store):
    now = timezone.now()
    yesterday, last_month = now - dt.timedelta(days=1), now - dt.timedelta(days=40)
    older_and_closer = put(
        alice, "We fixed the harbour deploy, the harbour is green.", at_angle(5), created_at=last_month
    )
    from_yesterday = put(alice, "The harbour deploy went out.", at_angle(30), created_at=yesterday)
    results = search("What happened with the harbour deploy yesterday?", alice, limit=2, heat=False, query_vector=QUERY)
    assert [r.note for r in results] == [from_yesterday, older_and_closer]
    plain = replace(FULL, date_boost=0.0)
    results = search(
        "What happened with the harbour deploy yesterday?",
        alice,
        limit=2,
        heat=False,
        query_vector=QUERY,
        ranking=plain,
    )
    assert [r.note for r in results] == [older_and_closer, from_yesterday]


def test_a_note_tells_of_the_days_its_words_name_read_against_when_it_was_said():
    said = dt.datetime(2023, 2, 1, 10, 0, tzinfo=dt.UTC)
    assert told_windows('Two weeks ago I read "Avalanche" in one sitting!', said) == [(D(2023, 1, 15), D(2023, 1, 21))]
    assert told_windows("Yesterday we got back from Rio.", said) == [(D(2023, 1, 30), D(2023, 2, 1))]
    assert told_windows("We moved here on 7 July 2020.", said) == [(D(2020, 7, 6), D(2020, 7, 8))]
    assert told_windows("The harbour trip was lovely.", said) == []
    # Numbers that are not a year, and a relative day beside them: the quick checks let it through.
    assert told_windows("We ran 5 km, our 12th run, 3 days ago.", said) == [(D(2023, 1, 28), D(2023, 1, 30))]
    assert told_windows("Ticket 4411: 5 km in 27 minutes.", said) == []


def test_overlap_needs_a_shared_day():
    january = [(D(2023, 1, 1), D(2023, 1, 31))]
    assert overlap([(D(2022, 12, 28), D(2023, 1, 1))], january)
    assert not overlap([(D(2023, 2, 1), D(2023, 2, 3))], january)
    assert not overlap([], january)


def test_a_note_telling_of_the_named_month_ranks_first_though_said_after_it(alice, store):
    february = dt.datetime(2023, 2, 1, 14, 0, tzinfo=dt.UTC)
    # Both were said in February; only one tells of January, and it is the weaker match.
    closer = put(alice, "I read a harbour book, the harbour book I liked.", at_angle(5), created_at=february)
    told_of_january = put(alice, "Two weeks ago I read a harbour book.", at_angle(30), created_at=february)
    query = "Which harbour book did she read in January 2023?"
    results = search(query, alice, limit=2, heat=False, query_vector=QUERY, explain=True)
    assert [r.note for r in results] == [told_of_january, closer]
    assert results[0].explain["date"] == 1.0 and results[1].explain["date"] == 0.0
    plain = replace(FULL, date_boost=0.0)
    assert search(query, alice, limit=1, heat=False, query_vector=QUERY, ranking=plain)[0].note == closer


@pytest.mark.parametrize("text", [query for query, _ in EXPLICIT + RELATIVE])
def test_the_quick_check_lets_every_date_through(text):
    # Every case the parser is tested on: a pattern added there is checked here too.
    said = dt.datetime.combine(MONDAY, dt.time(12), tzinfo=dt.UTC)
    assert told_windows(text, said) == named_windows(text, today=MONDAY)
