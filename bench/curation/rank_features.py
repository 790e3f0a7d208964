"""What a ranker tried on real stores read of a pair, beyond the judge (bench/curation/rank_real.py).

Tried and not shipped (docs/benchmarks.md, "Each note beside its nearest older note"): the judge's
change likelihood plus whether the newer note's sentence nearest the older one says something
changed or is history, both speakers the same, and each turn's length, fitted on the fit store's
planted changes. Beside each note's nearest older note it ranked held planted changes as well as
the judge alone on one held store and better on the other: not enough for a second set of weights.
"""

from __future__ import annotations

import math

from engine.judgments.pair_judge import Guess
from engine.reading import cues
from engine.reading.capture_rules import sentences
from engine.reading.statements import read, split_speaker


def features(old: str, new: str, guess: Guess) -> dict[str, float]:
    local, shared = nearest_sentence(old, new)
    old_speaker, _ = split_speaker(old.strip())
    new_speaker, _ = split_speaker(new.strip())
    return {
        "change": _logit(guess.change),
        "local_change": float(bool(cues.CHANGE.search(local)) and shared > 0),
        "local_history": float(bool(cues.HISTORY.search(local)) and shared > 0),
        "same_speaker": float(bool(old_speaker) and old_speaker == new_speaker),
        "old_length": _length(old),
        "new_length": _length(new),
        "bias": 1.0,
    }


def nearest_sentence(old: str, new: str) -> tuple[str, float]:
    """The newer note's sentence that shares most words with the older note, and the share of its words it shares."""
    old_words = read(old).words
    best, best_share = new, 0.0
    for sentence in sentences(split_speaker(new.strip())[1]) or [new]:
        words = read(sentence).words
        share = len(words & old_words) / len(words) if words else 0.0
        if share > best_share:
            best, best_share = sentence, share
    return best, best_share


def _length(text: str) -> float:
    """Length on a log scale: 0 for one word, 1 for about a hundred (a Chinese character counts half)."""
    body = split_speaker(text.strip())[1]
    han = sum(1 for ch in body if "\u4e00" <= ch <= "\u9fff")
    words = len(body.split()) if not han else han / 2
    return math.log1p(max(words, 1)) / math.log(101)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p)) / 5.0
