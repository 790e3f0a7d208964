"""Whether two texts say one fact: the only merges the rule-based (offline) mode makes on its own.

Without a model nothing can tell "Nate adopted a turtle" from "Nate adopted a second turtle
named Tank" for sure, and a wrong merge hides a fact inside another note. So offline, a fold
at write, the pending-merge job and the merge jobs merge only a text that *adds nothing* to
the other: the same words in the same order (case and punctuation aside), or every sentence
of it already said. Everything else that resembles a note is triaged for a person
(engine/judgments/triage.py). Measured on the labelled pairs of ``python -m bench curation``.
"""

from __future__ import annotations

import re

from engine.reading.contradiction_rules import contradiction
from engine.reading.statements import USER, Statement, read, split_speaker

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
_ORDERED_WORD = re.compile(r"[\u4e00-\u9fff]+|[A-Za-z][\w'-]*|\d+(?:[.:,/]\d+)*")


def _sentence_keys(text: str) -> set[str]:
    return {re.sub(r"[\W_]+", "", s.casefold()) for s in _SENTENCE_END.split(text) if s.strip()}


def near_duplicate(a: str, b: str, *, a_me: str = USER, b_me: str = USER) -> bool:
    """True when one of ``a`` and ``b`` says nothing the other does not, word for word and in
    order, or repeats every sentence of it (merging them loses nothing and mixes nothing).

    Bags of words are not enough: "Zoe prefers tea to coffee" / "Zoe prefers coffee to tea",
    "with milk" / "without milk" and "Tom lives in Leeds" / "Tom's brother lives in Leeds"
    share their words and say different things.
    """
    if contradiction(a, b, old_me=a_me, new_me=b_me) is not None:
        return False
    return adds_nothing(a, b, old_me=a_me, new_me=b_me) or adds_nothing(b, a, old_me=b_me, new_me=a_me)


def adds_nothing(old: str, new: str, *, old_me: str = USER, new_me: str = USER) -> bool:
    """``new`` says nothing ``old`` does not, in the same words and order (or repeats its sentences)."""
    return _adds_nothing(old, new, read(old, me=old_me), read(new, me=new_me))


def _adds_nothing(old: str, new: str, a: Statement, b: Statement) -> bool:
    """The newer note says nothing the older does not, in the same order: merging loses and mixes nothing."""
    first, second = _sentence_keys(split_speaker(old)[1]), _sentence_keys(split_speaker(new)[1])
    if first and second and second <= first:
        return True
    return a.subject == b.subject and _ordered(old) == _ordered(new) and a.negated == b.negated


def _ordered(text: str) -> list[str]:
    return [w.casefold() for w in _ORDERED_WORD.findall(split_speaker(text)[1])]
