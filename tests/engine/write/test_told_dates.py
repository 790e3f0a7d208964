"""A relative date in a captured fact gets the date it names beside it, read against when it was said."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.retrieval import dates
from engine.write.told_dates import anchor

SAID = dt.datetime(2026, 11, 5, 10, 0, tzinfo=dt.UTC)  # a Thursday


@pytest.mark.parametrize(
    "text, anchored",
    [
        ("I moved to Lisbon last month.", "I moved to Lisbon last month (October 2026)."),
        ("I quit my job yesterday.", "I quit my job yesterday (4 November 2026)."),
        ("We adopted a cat two weeks ago.", "We adopted a cat two weeks ago (around 22 October 2026)."),
        ("I started Japanese last week.", "I started Japanese last week (the week of 26 October 2026)."),
        ("We met last Friday.", "We met last Friday (30 October 2026)."),
        ("我上个月搬到了杭州。", "我上个月（2026年10月）搬到了杭州。"),
        ("我上周开始学日语了。", "我上周（2026年10月26日至11月1日）开始学日语了。"),
        ("我昨天辞职了。", "我昨天（2026年11月4日）辞职了。"),
        ("My daughter starts violin next Tuesday.", "My daughter starts violin next Tuesday."),
        ("I have lived in Porto since 2019.", "I have lived in Porto since 2019."),
    ],
)
def test_relative_dates_are_anchored(text, anchored):
    assert anchor(text, SAID) == anchored


def test_the_anchored_text_names_the_same_window_search_reads():
    # The search's date reading finds October in the anchored fact, whenever it is read.
    later = dt.datetime(2027, 3, 1, tzinfo=dt.UTC)
    text = anchor("I moved to Lisbon last month.", SAID)
    assert dates.told_windows(text, later) == [(dt.date(2026, 10, 1), dt.date(2026, 10, 31))]
