"""Whether two texts say one fact: the only merges the rule-based (offline) mode makes on its own.

Without a model nothing can tell "Nate adopted a turtle" from "Nate adopted a second turtle
named Tank" for sure, and a wrong merge hides a fact inside another note. So offline, a fold
at write, the pending-merge job and the merge jobs merge only texts that are the same
statement: the same subject, the same polarity and numbers, and the same content words give
or take ``SLACK`` (an adverb, a synonym the stemmer does not join). Everything else waits for
a person in the merge queue. Measured on the labelled pairs of ``python -m bench curation``.
"""

from __future__ import annotations

import re

from engine.llm.contradiction_rules import contradiction
from engine.llm.statements import EN_STOP, USER, Statement, read, stem

SLACK = 1


def _sentences(text: str) -> set[str]:
    return {re.sub(r"[\W_]+", "", s.lower()) for s in re.split(r"(?<=[.!?。！？])\s*", text) if s.strip()}


def near_duplicate(a: str, b: str, *, a_me: str = USER, b_me: str = USER) -> bool:
    """True when ``a`` and ``b`` say the same, or one repeats every sentence of the other word
    for word and adds more (merging them loses nothing and mixes nothing)."""
    if contradiction(a, b, old_me=a_me, new_me=b_me) is not None:
        return False
    first, second = _sentences(a), _sentences(b)
    if first and second and (first <= second or second <= first):
        return True
    x, y = read(a, me=a_me), read(b, me=b_me)
    if not x.words or x.negated != y.negated or set(x.numbers) != set(y.numbers):
        return False
    # The subject among the words: "In the morning Alice prefers green tea" says what
    # "Alice prefers green tea in the morning" says, whichever word comes first.
    return len(_all_words(x) ^ _all_words(y)) <= SLACK


def _all_words(statement: Statement) -> set[str]:
    named = {stem(w) for w in statement.subject.replace("'s", "").split() if w not in EN_STOP}
    return set(statement.words) | named
