"""What happens to a pair of notes the machine cannot be sure about: the one place that decides.

Offline the pair judge (engine/judgments/pair_judge.py) finds and ranks; a person decides. For a
pair (older note, newer text):

* ``conflict``: the newer likely replaces the older — a conflict pair opens (the conflict queue);
* ``ask``: it may replace it, or both may say one fact — a merge pair opens (the merge queue),
  with the machine's guess and reason on the card;
* ``fold``: one says nothing the other does not, word for word (or repeats every sentence of it)
  — merged without a person (nothing can be lost or mixed);
* ``keep``: neither — two notes, linked as usual, nobody asked.

Nothing that might disagree is merged, folded or cleared offline. With a model configured the
model's own verdicts (fold, evolution judge, contradiction sweep) decide, and the pair records
``opened_by = "model"``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from engine.judgments import pair_weights
from engine.judgments.pair_judge import CHANGE, SAME, Guess, judge
from engine.reading.same_statement import adds_nothing
from engine.reading.statements import USER
from memories.models import Note

CONFLICT, ASK, FOLD, KEEP = "conflict", "ask", "fold", "keep"
# Which fit of the judge's weights scored a pair (``Pair.model_version``): a refit changes it.
WEIGHTS_VERSION = hashlib.sha256(
    repr(sorted((k, v) for k, v in vars(pair_weights).items() if k.isupper())).encode()
).hexdigest()[:12]


@dataclass(frozen=True)
class Triage:
    action: str
    other: Note | None  # the older note of the pair
    guess: Guess | None = None
    similarity: float | None = None

    @property
    def verdict(self) -> str:
        return self.guess.verdict if self.guess else ""

    @property
    def reason(self) -> str:
        if self.guess is None:
            return ""
        label = {CHANGE: "may have changed", SAME: "may be one fact"}.get(self.guess.verdict, "related")
        return f"{label} ({self.guess.change:.0%} a change): {self.guess.reason}"


def me_of(subjects: Iterable[str] | None) -> str:
    """Who "I" is in a note that names no speaker: its only subject, else the agent's user."""
    subjects = list(subjects or [])
    return subjects[0] if len(subjects) == 1 else USER


def assess(older: Note, text: str, similarity: float, *, subjects: Iterable[str] = ()) -> Triage:
    """What to do with ``text`` (to be written, or written later) against ``older``."""
    subjects = list(subjects)
    if older.subjects and subjects and not set(older.subjects) & set(subjects):
        return Triage(KEEP, older, None, similarity)  # about other people: nothing to compare
    guess = judge(older.content, text, similarity=similarity, old_me=me_of(older.subjects), new_me=me_of(subjects))
    one_statement = guess.identical or adds_nothing(text, older.content)  # either says nothing the other does not
    if guess.change >= pair_weights.CHANGE_AT:
        action = CONFLICT
    elif one_statement:
        action = FOLD  # nothing to lose or mix; a likely change was caught above
    elif guess.change >= pair_weights.ASK_AT or guess.same >= pair_weights.SAME_AT:
        action = ASK
    else:
        action = KEEP
    return Triage(action, older, guess, similarity)
