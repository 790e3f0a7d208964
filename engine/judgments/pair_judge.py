"""The offline pair judge: how an earlier note and a later one stand to each other, and why.

Offline there is no reading comprehension, so the judge does not decide: it finds and ranks.
For a pair (older, newer) it measures evidence — whom each is about, the words they share,
a value that changed, a word saying something changed, history or plans, a polarity flipped,
two things that exclude each other — and turns it into two likelihoods with a logistic model
(the weights in engine/judgments/pair_weights.py, fitted by ``python -m bench.curation.fit --write``
on the labelled sets' tuning split only):

* ``change``: the newer note may replace the older (a contradiction);
* ``same``: both say one fact.

What the product does with them (engine/judgments/triage.py): a likely change opens a conflict,
a possible one or a possible duplicate waits for a person as a pair, and nothing that might
disagree is merged, folded or cleared without a person. The reason is written in words a
person reads: the two values, the word that changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.judgments import pair_weights
from engine.reading import contradiction_rules as rules
from engine.reading import cues
from engine.reading.same_statement import adds_nothing
from engine.reading.statements import USER, read, split_speaker

CHANGE, SAME, BOTH = "change", "same", "both"


@dataclass(frozen=True)
class Guess:
    change: float  # how likely the newer note replaces the older (0–1)
    same: float  # how likely both say one fact (0–1)
    reason: str  # in plain words, for the card
    identical: bool  # the newer adds nothing the older does not say, word for word

    @property
    def verdict(self) -> str:
        if self.change >= pair_weights.CHANGE_AT:
            return CHANGE
        if self.same >= pair_weights.SAME_AT:
            return SAME
        if self.change >= pair_weights.ASK_AT:
            return CHANGE
        return BOTH


def features(
    old: str,
    new: str,
    *,
    similarity: float,
    old_me: str = USER,
    new_me: str = USER,
) -> dict[str, float]:
    """The evidence the model weighs, by name (the names are the weights' keys).

    How much of the older text is gone and how much is new: a value swapped ("Leeds" → "York")
    reads differently from words only added (detail).
    """
    a, b = read(old, me=old_me), read(new, me=new_me)
    gone, added = _difference(old, new, limit=12)
    ca, cb = cues.cues(old), cues.cues(new)
    same_subject = bool(a.subject) and a.subject == b.subject
    relative = _relative(a.subject, b.subject)
    shared = a.words & b.words
    union = a.words | b.words
    smaller = min(len(a.words), len(b.words)) or 1
    slot = rules.slot_change(a, b) is not None
    negation = rules.negation_change(a, b) is not None
    number = rules.number_change(a, b) is not None
    change_rule = rules.said_change(a, b) is not None
    numbers_differ = bool(set(a.numbers) - set(b.numbers)) and bool(set(b.numbers) - set(a.numbers))
    polarity = (ca.likes and cb.dislikes) or (ca.dislikes and cb.likes)
    excludes = cues.excluding(old, new) is not None
    b_in_a = b.words <= a.words and set(b.numbers) <= set(a.numbers) and a.negated == b.negated
    a_in_b = a.words <= b.words and set(a.numbers) <= set(b.numbers) and a.negated == b.negated
    old_words = max(len(_surface(old)), 1)
    return {
        "similarity": similarity,
        "swapped": float(bool(gone and added)),
        "gone_share": min(1.0, len(gone) / old_words),
        "added_share": min(1.0, len(added) / old_words),
        "overlap": len(shared) / smaller,
        "jaccard": len(shared) / len(union) if union else 0.0,
        "same_subject": float(same_subject),
        "relative": float(relative),
        "slot": float(slot and same_subject),
        "negation": float(negation and same_subject),
        "number": float(number and same_subject),
        "change_rule": float(change_rule and same_subject),
        "numbers_differ": float(numbers_differ),
        "change_word": float(bool(cb.change) and not ca.change),
        "history_new": float(cb.history),
        "history_old": float(ca.history),
        "plan_new": float(cb.plan),
        "question_new": float(cb.question or ca.question),
        "polarity": float(polarity),
        "excludes": float(excludes),
        "negation_differs": float(a.negated != b.negated),
        "new_in_old": float(b_in_a),
        "old_in_new": float(a_in_b),
        "identical": float(adds_nothing(old, new, old_me=old_me, new_me=new_me)),
        "zh": float(a.zh or b.zh),
        "bias": 1.0,
    }


def judge(old: str, new: str, *, similarity: float, old_me: str = USER, new_me: str = USER) -> Guess:
    """How ``new`` (written later) stands to ``old``: the two likelihoods and the reason."""
    f = features(old, new, similarity=similarity, old_me=old_me, new_me=new_me)
    change = _logistic(f, pair_weights.CHANGE)
    same = _logistic(f, pair_weights.SAME)
    return Guess(change=change, same=same, reason=reason(old, new, f), identical=bool(f["identical"]))


def _logistic(f: dict[str, float], weights: dict[str, float]) -> float:
    z = sum(weights.get(name, 0.0) * value for name, value in f.items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _relative(x: str, y: str) -> bool:
    """One subject is the other's relative or friend ("tom" / "tom's wife", "user" / "user's parents")."""
    return bool(x and y and x != y and (x.startswith(f"{y}'s ") or y.startswith(f"{x}'s ")))


def reason(old: str, new: str, f: dict[str, float]) -> str:
    """Why the pair is shown, in words a person reads: what differs, and the word that says so."""
    gone, added = _difference(old, new)
    parts: list[str] = []
    if gone or added:
        parts.append(f"“{' '.join(gone) or '—'}” → “{' '.join(added) or '—'}”")
    found = cues.excluding(old, new)
    if found:
        parts.append(f"“{found[0]}” and “{found[1]}” rarely both hold")
    change_word = cues.cues(new).change
    if f["change_word"] and change_word:
        parts.append(f"the newer note says “{change_word}”")
    if f["negation_differs"]:
        parts.append("one of them says not")
    if f["polarity"]:
        parts.append("a liking turned around")
    if f["relative"]:
        parts.append("about different people")
    if f["history_new"]:
        parts.append("the newer is told as the past")
    if f["plan_new"]:
        parts.append("the newer is a plan or a maybe")
    if f["question_new"]:
        parts.append("one is a question")
    if f["identical"]:
        parts.append("the newer adds nothing")
    return "; ".join(parts) or "similar notes"


def _difference(old: str, new: str, limit: int = 6) -> tuple[list[str], list[str]]:
    """The words, as written, that only one of the two texts has (at most ``limit`` each)."""
    x, y = _surface(old), _surface(new)
    low_x, low_y = {w.casefold() for w in x}, {w.casefold() for w in y}
    gone = [w for w in x if w.casefold() not in low_y and w.casefold() not in _QUIET][:limit]
    added = [w for w in y if w.casefold() not in low_x and w.casefold() not in _QUIET][:limit]
    return gone, added


def _surface(text: str) -> list[str]:
    from engine.reading.statements import split_words

    seen: list[str] = []
    for token in split_words(split_speaker(text)[1]):
        if any(ch.isalnum() for ch in token) and token not in seen:
            seen.append(token)
    return seen


# Function words a reader does not need in "what differs". Part of the fitted features (gone_share,
# added_share read the difference): not the per-language lists of engine/reading/stop_words.py, which
# moved the curation figures when tried (docs/benchmarks.md); a change here asks for a refit.
_QUIET = frozenset(
    """
    a an the is are was were be been am i me my we our you your he she they it its his her their to of in on at
    for and or but so that this with as by from s 's n't not do does did have has had will would just really
    very 的 了 是 在 也 都 和 就 还 很 吗 呢 啊 吧 我 我们 你 他 她 它 这 那 个
    """.split()
)
