"""Dates a query names, so that matches from that time rank first (docs/retrieval.md, "Named dates").

"What did Gina find for her clothing store on 1 February, 2023?" names the day the thing was
said; nothing in the words of the answer ("one replied and said yes today!") carries it. A
note's time is when it happened (``created_at``: a conversation turn's ``occurred_at``). When
the query names a day or a month, the search adds ``Ranking.date_boost`` (engine/retrieval/search.py) to the candidates
from that window, so among the notes that match the query those from the named time come
first. A candidate whose own words place what it tells in that window counts too
(``told_windows``: "two weeks ago", "yesterday", "last month", a date, read against when it was
said). On LoCoMo, where 194 of 1,536 questions name a date, that raised R@10 0.701 → 0.722
and R@1 0.307 → 0.323 (docs/benchmarks.md, "LoCoMo round 3").

Explicit dates: a day with its month and year ("7 July, 2023", "July 7 2023", "9th December
2023", "2023-07-07", "2023年7月7日") or a month with its year ("May 2023", "2023年5月"). A bare
year is too wide to help and too often a number. A day's window has a day of slack on each side:
a turn said late on the 7th in one time zone is the 8th in UTC.

Relative dates are read against the day of the search (``today``), the time an agent asks in:
"yesterday", "the day before yesterday", "3 days ago", "two weeks ago", "a month ago", "last
Friday", "last week", "last month" and 昨天, 前天, 大前天, 3天前, 两周前, 一个月前, 上周五, 上周,
上个月, when the query names no explicit date (then that is its time). A relative day wins over
a relative week or month, as a named day wins over a month. "Today", "this week"
and "this month" are not read: "How is the project today?" means "nowadays" as often as it means
this very day, and the newest notes need no help to be found.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"

_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_HAN_DAY = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
_HAN_MONTH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月")

SLACK = dt.timedelta(days=1)

Window = tuple[dt.date, dt.date]


def _day(year: str, month: int, day: str) -> Window | None:
    try:
        when = dt.date(int(year), month, int(day))
    except ValueError:  # "31 February 2023" names no day
        return None
    return when - SLACK, when + SLACK


def _month(year: str, month: int) -> Window | None:
    if not 1 <= month <= 12:
        return None
    last = calendar.monthrange(int(year), month)[1]
    return dt.date(int(year), month, 1), dt.date(int(year), month, last)


def named_windows(query: str, today: dt.date | None = None) -> list[Window]:
    """The (first, last) days the query names; a named day (even one that does not exist) wins
    over months, so "31 February 2023" is not read as February. Relative dates are read against
    ``today`` when given, and only when the query names no explicit date: in "What did Joanna
    finish last Friday, on 23 January 2022?" the time is the explicit one."""
    days: list[Window | None] = []
    days += [_day(m[3], _MONTHS[m[2].lower()], m[1]) for m in _DAY_MONTH_YEAR.finditer(query)]
    days += [_day(m[3], _MONTHS[m[1].lower()], m[2]) for m in _MONTH_DAY_YEAR.finditer(query)]
    days += [_day(m[1], int(m[2]), m[3]) for m in _ISO_DAY.finditer(query)]
    days += [_day(m[1], int(m[2]), m[3]) for m in _HAN_DAY.finditer(query)]
    if days:
        return [w for w in days if w is not None]
    months = [_month(m[2], _MONTHS[m[1].lower()]) for m in _MONTH_YEAR.finditer(query)]
    months += [_month(m[1], int(m[2])) for m in _HAN_MONTH.finditer(query)]
    if months or today is None:
        return [w for w in months if w is not None]
    relative_days, relative_spans = _relative(query, today)
    return relative_days or relative_spans


# Relative dates. Each pattern's text is blanked once it is read, so "the day before yesterday"
# is not also "yesterday", nor 大前天 also 前天, nor 上周五 also 上周. A new pattern's words must
# also pass _may_be_relative below (tests/engine/retrieval/test_dates.py checks every tested case).
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_COUNT = r"(\d{1,3}|" + "|".join(_NUMBER_WORDS) + r")"
_HAN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# A whole number, never the tail of one: 十五天前 is fifteen days, not five.
_HAN_COUNT = r"(?<![\d十百" + "".join(_HAN_DIGITS) + r"])(\d{1,3}|[十" + "".join(_HAN_DIGITS) + r"]{1,3})"
_WEEKDAYS = {name.lower(): number for number, name in enumerate(calendar.day_name)}
_HAN_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_LAST_WEEK = r"(?:上周|上个?星期|上个?礼拜)"

_DAYS_BACK = [  # (pattern, days before today; a group: that many)
    (re.compile(r"\bthe\s+day\s+before\s+yesterday\b", re.IGNORECASE), 2),
    (re.compile(r"\b(?:yesterday|last\s+night)\b", re.IGNORECASE), 1),
    (re.compile(r"大前天"), 3),
    (re.compile(r"(?<![之以提目当眼面从先])前天"), 2),  # not 之前天气 ("before, the weather")
    (re.compile(r"昨[天日晚]"), 1),
    (re.compile(rf"\b{_COUNT}\s+days?\s+ago\b", re.IGNORECASE), None),
    (re.compile(rf"{_HAN_COUNT}\s*天(?:之|以)?前"), None),
]
_WEEKS_BACK = [
    re.compile(rf"\b{_COUNT}\s+weeks?\s+ago\b", re.IGNORECASE),
    re.compile(rf"{_HAN_COUNT}\s*(?:个)?(?:周|星期|礼拜)(?:之|以)?前"),
]
_MONTHS_BACK = [
    re.compile(rf"\b{_COUNT}\s+months?\s+ago\b", re.IGNORECASE),
    re.compile(rf"{_HAN_COUNT}\s*个月(?:之|以)?前"),
]
# "the last week of June", "last Friday of the month" name no time relative to today.
_NOT_OF = r"\b(?!\s+(?:of|in|before|after)\b)"
_LAST_WEEKDAY = re.compile(r"\blast\s+(" + "|".join(_WEEKDAYS) + r")" + _NOT_OF, re.IGNORECASE)
_HAN_LAST_WEEKDAY = re.compile(_LAST_WEEK + "([" + "".join(_HAN_WEEKDAYS) + "])")
_LAST_WEEK_SPAN = re.compile(r"\blast\s+week" + _NOT_OF + "|" + _LAST_WEEK, re.IGNORECASE)
_LAST_MONTH_SPAN = re.compile(r"\blast\s+month" + _NOT_OF + r"|上个?月", re.IGNORECASE)


def _count(word: str) -> int | None:
    """3, "three", 三, 十五, 二十: the number of days, weeks or months back; None for 三五 ("three
    or five") or another form it does not read."""
    if word.isdigit():
        return int(word)
    if word.lower() in _NUMBER_WORDS:
        return _NUMBER_WORDS[word.lower()]
    tens, ten, units = word.rpartition("十")
    if not ten:
        return _HAN_DIGITS.get(word)
    high = _HAN_DIGITS.get(tens) if tens else 1
    low = _HAN_DIGITS.get(units) if units else 0
    return None if high is None or low is None else high * 10 + low


def _relative(query: str, today: dt.date) -> tuple[list[Window], list[Window]]:
    """Relative days (each with the usual slack) and relative weeks and months, against ``today``."""
    if not _may_be_relative(query, _words(query)):  # most texts: none of the dozen patterns can match
        return [], []
    days: list[Window] = []
    spans: list[Window] = []
    # "Two weeks ago" is vaguer than "two days ago": a week around that day; a month: two weeks.
    slack = {"day": SLACK, "about-week": dt.timedelta(days=3), "about-month": dt.timedelta(days=7)}
    for _, _, (first, last), unit in relative_mentions(query, today):
        if unit in slack:
            days.append((first - slack[unit], first + slack[unit]))
        else:
            spans.append((first, last))
    return days, spans


def within(when: dt.datetime, windows: list[Window]) -> bool:
    day = when.date()
    return any(first <= day <= last for first, last in windows)


# Quick checks before the patterns (0.16 ms a text, and a search reads 80 candidates): every
# relative date above has one of these words or marks, and every explicit date four digits (its
# year) and a month's name, 年 or an ISO date's dash. Word sets, not one regex over the names:
# 5 µs a text against 26 (on a store whose every note carries a four-digit number, a query naming
# a month took 20 ms; 5 with these checks).
_LATIN_WORD = re.compile(r"[a-z]+")
_RELATIVE_WORDS = frozenset({"yesterday", "ago", "last"})
_RELATIVE_MARKS = ("昨", "前", "上")
_YEAR_LIKE = re.compile(r"\d{4}")


def _words(text: str) -> set[str]:
    return set(_LATIN_WORD.findall(text.lower()))


def _may_be_relative(text: str, words: set[str]) -> bool:
    return not _RELATIVE_WORDS.isdisjoint(words) or any(mark in text for mark in _RELATIVE_MARKS)


def told_windows(text: str, said: dt.datetime) -> list[Window]:
    """The days a note's own words place what it tells, read against when it was said: "Two weeks
    ago I read Avalanche", said on 1 February, tells of mid-January; "on 7 July 2023" of that day.

    A query naming January should find that note, though the note was written in February: a
    turn's time is when it was said, not when what it tells happened.
    """
    words = _words(text)
    explicit = _YEAR_LIKE.search(text) and ("年" in text or "-" in text or not words.isdisjoint(_MONTHS))
    if not explicit and not _may_be_relative(text, words):
        return []
    return named_windows(text, today=said.date())


def overlap(spans: list[Window], windows: list[Window]) -> bool:
    return any(first <= end and start <= last for start, end in spans for first, last in windows)


def relative_mentions(text: str, today: dt.date) -> list[tuple[int, int, Window, str]]:
    """Where ``text`` names a time relative to ``today``: (start, end, window, unit) for each, unit
    "day", "about-week", "about-month", "week" or "month" ("last month" said on 5 November:
    October). The query reading above and a write (which puts the absolute date beside the relative
    one, engine/write/told_dates.py) both read through it."""
    found: list[tuple[int, int, Window, str]] = []
    blank = text

    def take(pattern: re.Pattern[str]) -> list[re.Match[str]]:
        # Each pattern's text is blanked once read (see _DAYS_BACK).
        nonlocal blank
        matches = list(pattern.finditer(blank))
        if matches:
            blank = pattern.sub(lambda m: " " * len(m[0]), blank)
        return matches

    for pattern, back in _DAYS_BACK:
        for m in take(pattern):
            count = back if back is not None else _count(m[1])
            if count is not None:
                day = today - dt.timedelta(days=count)
                found.append((m.start(), m.end(), (day, day), "day"))
    for patterns, unit, name in ((_WEEKS_BACK, 7, "week"), (_MONTHS_BACK, 30, "month")):
        for pattern in patterns:
            for m in take(pattern):
                count = _count(m[1])
                if count is not None:
                    middle = today - dt.timedelta(days=unit * count)
                    found.append((m.start(), m.end(), (middle, middle), f"about-{name}"))
    monday = today - dt.timedelta(days=today.weekday())
    for m in take(_LAST_WEEKDAY):
        back = (today.weekday() - _WEEKDAYS[m[1].lower()] - 1) % 7 + 1
        day = today - dt.timedelta(days=back)
        found.append((m.start(), m.end(), (day, day), "day"))
    for m in take(_HAN_LAST_WEEKDAY):
        day = monday - dt.timedelta(weeks=1) + dt.timedelta(days=_HAN_WEEKDAYS[m[1]])
        found.append((m.start(), m.end(), (day, day), "day"))
    for m in take(_LAST_WEEK_SPAN):
        found.append((m.start(), m.end(), (monday - dt.timedelta(weeks=1), monday - dt.timedelta(days=1)), "week"))
    for m in take(_LAST_MONTH_SPAN):
        last = today.replace(day=1) - dt.timedelta(days=1)
        found.append((m.start(), m.end(), (last.replace(day=1), last), "month"))
    return sorted(found)
