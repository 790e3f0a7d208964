"""Whether two texts say one fact: the only merges the rule-based (offline) mode makes on its own.

Without a model nothing can tell "Nate adopted a turtle" from "Nate adopted a second turtle
named Tank" for sure, and a wrong merge hides a fact inside another note. So offline, a fold
at write, the pending-merge job and the merge jobs merge only texts that are the same
statement: the same subject, the same polarity and numbers, and the same content words give
or take ``SLACK`` (an adverb, a synonym the stemmer does not join).

Of the rest, the pending-merge job offers a person only pairs where one text *restates* the
other: it adds at most ``NEW_DETAIL`` content words the other does not say. Two notes that each
add more (two observations of one person in one conversation) are kept both, unseen: keeping
both loses nothing, and a queue of them is not worth a person's time. Measured on the labelled
pairs and the 2,000-note scale row of ``python -m bench curation``.
"""

from __future__ import annotations

import re

from engine.llm.contradiction_rules import contradiction
from engine.llm.statements import EN_STOP, USER, Statement, read, split_speaker, stem

SLACK = 1
# At most this many content words of one text missing from the other: a merge a person may
# want. Measured (docs/benchmarks.md): 1 keeps 34 of the 46 duplicates and paraphrases that
# waited before and 70 of 1,024 waiting LoCoMo notes; 2 keeps 41 and 182 but, on the held-out
# pairs, no more duplicates or paraphrases than 1, only more pairs of other kinds.
NEW_DETAIL = 1


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


def restates(a: str, b: str) -> bool:
    """True when one of ``a`` and ``b`` adds at most ``NEW_DETAIL`` content words to the other.

    Offline, only such a pair is worth a person's look as a possible merge; when each text
    adds more, both are kept (engine/maintenance/pending.py).
    """
    first, second = _spoken_words(a), _spoken_words(b)
    return min(len(first - second), len(second - first)) <= NEW_DETAIL


def _spoken_words(text: str) -> set[str]:
    """Content words with the subject, and the speaker of a turn ("John: The people around me …"
    is about John as much as "John thinks …" is)."""
    speaker, _ = split_speaker(text.strip())
    named = {stem(w) for w in speaker.casefold().split()} if speaker else set()
    return _all_words(read(text)) | named
