"""A fact that says "last month" or 上周 gets the date it means beside it, read against when it was said.

"I moved to Lisbon last month", said on 5 November 2026 and stored as it was said, would read as
moved-last-month whenever it is recalled; the CRUD gate writes "I moved to Lisbon last month
(October 2026)" instead, and the note's time is the turn's (``POST /turns`` ``occurred_at``), so
search's date reading (engine/retrieval/dates.py) places it in October too. The relative words
stay: they are what the user said. English relative dates get an English date, Chinese ones a
Chinese date (上周（2026年11月16日至22日）).
"""

from __future__ import annotations

import datetime as dt

from engine.retrieval import dates

_HAN = range(0x4E00, 0xA000)


def _is_han(text: str) -> bool:
    return any(ord(c) in _HAN for c in text)


def _english(window: dates.Window, unit: str) -> str:
    first, _last = window
    if unit == "day":
        return f"{first.day} {first:%B %Y}"
    if unit == "week":
        return f"the week of {first.day} {first:%B %Y}"
    if unit == "about-week":
        return f"around {first.day} {first:%B %Y}"
    if unit == "about-month":
        return f"around {first:%B %Y}"
    return f"{first:%B %Y}"


def _chinese(window: dates.Window, unit: str) -> str:
    first, last = window
    if unit == "day":
        return f"{first.year}年{first.month}月{first.day}日"
    if unit == "week":
        return f"{first.year}年{first.month}月{first.day}日至{last.month}月{last.day}日"
    if unit == "about-week":
        return f"{first.year}年{first.month}月{first.day}日前后"
    if unit == "about-month":
        return f"{first.year}年{first.month}月前后"
    return f"{first.year}年{first.month}月"


def anchor(text: str, said: dt.datetime) -> str:
    """``text`` with each relative date followed by the date it names, in brackets."""
    mentions = dates.relative_mentions(text, said.date())
    out, at = [], 0
    for start, end, window, unit in mentions:
        words = text[start:end]
        label = f"（{_chinese(window, unit)}）" if _is_han(words) else f" ({_english(window, unit)})"
        out += [text[at:end], label]
        at = end
    return "".join([*out, text[at:]])
