"""Rules that spot two near-identical texts disagreeing, so a fold never glues them together.

The L2 fold merges texts at cosine ≥ 0.85, and near-identical wording often says opposite
things: "Mia is 7" / "Mia just turned 9" (cos ≈ 0.9), "Alex likes tea" / "Alex no longer
likes tea". Offline, the fold kept both sentences in one note (issue 14); a reader could not
tell which held. These rules run before a fold in every mode: when they fire, the new text
is stored as its own note and the pair is opened as a conflict for review
(engine/annotations/conflicts.py), as the pending-merge job does for a CONFLICT verdict.

They are deliberately simple and lean towards "conflict": a false alarm costs a reviewer
a click, a false merge loses which fact is current.
"""

from __future__ import annotations

import calendar
import re

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
# Month and day names (English, from the standard library) count as dates.
_MONTHS = [name.lower() for name in (*calendar.month_name, *calendar.day_name) if name]
# Said of a state that changed or does not hold. "now" alone marks a change when the other
# text lacks it ("Alex now lives in Lyon" against "Alex lives in Paris").
_NEGATIONS = re.compile(
    r"\b(?:not|never|no longer|no more|anymore|any more|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|"
    r"won't|can't|cannot|hasn't|haven't|stopped|quit|gave up)\b|n't\b|不再|不是|没有|不|没|别|已经不",
    re.IGNORECASE,
)
_CHANGES = re.compile(
    r"\b(?:now|no longer|stopped|anymore|used to|switched|moved|changed|instead)\b|现在|如今|改为|搬到|不再",
    re.IGNORECASE,
)


def _numbers(text: str) -> set[str]:
    found = set(re.findall(r"\d+(?:[.,:/]\d+)*", text))
    lowered = [w.lower() for w in _WORD.findall(text)]
    found |= {str(_NUMBER_WORDS[w]) for w in lowered if w in _NUMBER_WORDS}
    found |= {w for w in lowered if w in _MONTHS}
    return found


# Words that open a sentence without saying what it is about.
_OPENERS = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "its",
        "i",
        "we",
        "you",
        "he",
        "she",
        "they",
        "it",
        "there",
        "here",
        "so",
        "and",
        "but",
        "also",
        "then",
        "well",
        "oh",
        "yes",
        "no",
    ]
)


def subject(text: str) -> str:
    """The first word that names something — "mia" in "Mia is 7", "staging" in "The staging
    database …": a cheap stand-in for the sentence's subject. Two texts about different
    things ("staging" / "production" database, PostgreSQL 16 / 15) do not contradict."""
    for word in _WORD.findall(text):
        if word.lower() not in _OPENERS:
            return word.lower()
    return ""


def contradiction(old: str, new: str) -> str | None:
    """Why ``new`` may contradict ``old`` (a reason for the reviewer), or None.

    Only texts about the same subject can contradict each other.
    """
    if subject(old) != subject(new):
        return None
    old_numbers, new_numbers = _numbers(old), _numbers(new)
    # Each side has a number the other lacks: 7 / 9. A number only added is detail: 16 / 16 and 64.
    if old_numbers - new_numbers and new_numbers - old_numbers:
        return f"different numbers or dates: {', '.join(sorted(old_numbers))} / {', '.join(sorted(new_numbers))}"
    if bool(_NEGATIONS.search(old)) != bool(_NEGATIONS.search(new)):
        return "one text negates what the other states"
    old_change, new_change = _CHANGES.search(old), _CHANGES.search(new)
    if new_change and not old_change:
        return f'the new text says something changed ("{new_change.group(0)}")'
    if old_change and not new_change:
        return f'the texts disagree on a change ("{old_change.group(0)}")'
    return None
