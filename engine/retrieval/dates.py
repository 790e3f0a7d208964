"""Dates a query names, so that matches from that time rank first (docs/retrieval.md, "Named dates").

"What did Gina find for her clothing store on 1 February, 2023?" names the day the thing was
said; nothing in the words of the answer ("one replied and said yes today!") carries it. A
note's time is when it happened (``created_at``: a conversation turn's ``occurred_at``). When
the query names a day or a month, the search adds ``Pipeline.date_boost`` to the candidates
from that window, so among the notes that match the query those from the named time come
first. On LoCoMo, where 194 of 1,536 questions name a date, that raised R@10 0.701 → 0.722
and R@1 0.307 → 0.323 (docs/benchmarks.md, "LoCoMo round 3").

Only explicit dates count: a day with its month and year ("7 July, 2023", "July 7 2023",
"9th December 2023", "2023-07-07", "2023年7月7日") or a month with its year ("May 2023",
"2023年5月"). A bare year is too wide to help and too often a number; relative dates
("last Friday") need a reference time the query does not carry. A day's window has a day of
slack on each side: a turn said late on the 7th in one time zone is the 8th in UTC.
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


def named_windows(query: str) -> list[Window]:
    """The (first, last) days the query names; a named day (even one that does not exist) wins
    over months, so "31 February 2023" is not read as February."""
    days: list[Window | None] = []
    days += [_day(m[3], _MONTHS[m[2].lower()], m[1]) for m in _DAY_MONTH_YEAR.finditer(query)]
    days += [_day(m[3], _MONTHS[m[1].lower()], m[2]) for m in _MONTH_DAY_YEAR.finditer(query)]
    days += [_day(m[1], int(m[2]), m[3]) for m in _ISO_DAY.finditer(query)]
    days += [_day(m[1], int(m[2]), m[3]) for m in _HAN_DAY.finditer(query)]
    if days:
        return [w for w in days if w is not None]
    months = [_month(m[2], _MONTHS[m[1].lower()]) for m in _MONTH_YEAR.finditer(query)]
    months += [_month(m[1], int(m[2])) for m in _HAN_MONTH.finditer(query)]
    return [w for w in months if w is not None]


def within(when: dt.datetime, windows: list[Window]) -> bool:
    day = when.date()
    return any(first <= day <= last for first, last in windows)
