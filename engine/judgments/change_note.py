"""How likely a note says that something about its speaker stopped being true: a model over its vector.

The pair judge (pair_judge.py) reads cue words: "now", "no longer", "已经不". On a real store
those words fill long chat turns that change nothing, and a change said in other words ("Samantha
and I split up", "我现在最喜欢紫色了") scores near zero. Ranked by the judge alone, the first 75
cards of three nights held 10 of the fit store's 28 planted changes among the sweep's pairs.

This model reads the newer note as a whole: multilingual-e5-small's ``query:`` vector
(note_vectors.py) times 384 fitted weights (change_note_weights.json), the likelihood that the note
announces a change of a fact (a move, a new job, a break-up, a new favourite, a new date). The
pair sweep (engine/maintenance/pair_sweep.py) ranks a night's pairs by it together with the
judge: ``ranking`` below. It decides nothing alone: which pairs are weighed at all, and what a
pair becomes (conflict, a pair for a person), stay the judge's and triage's.

Fitted on changes of real notes written blind and, as their counterweight, later turns of the
same notes that keep them true, against real chat turns (bench/curation/sets/real, fit split
only); the model card is change_note.md beside this file, the refit command
``.venv/bin/python -m bench.curation.fit_change --write``.
"""

from __future__ import annotations

import numpy as np

from engine.judgments import fitted
from engine.judgments.note_vectors import logistic, vectors

# The most notes the sweep has the model read in one night (about 2 minutes on 2 cores), and what
# a pair it did not read counts as: undecided, so the judge alone places it.
READS_PER_NIGHT = 4000
UNDECIDED = 0.5
MODEL = fitted.load("change_note")


def likelihoods_of(rows: np.ndarray) -> np.ndarray:
    """The likelihood, per vector, that its note says a fact changed."""
    return logistic(rows, MODEL.weights, MODEL.bias)


def says_change(texts: list[str]) -> list[float]:
    """Per text, the likelihood that it says a fact changed."""
    return [float(p) for p in likelihoods_of(vectors(texts))]


def ranking(judge_change: float, says: float) -> float:
    """A night's order of pairs: the judge's change likelihood and the note model's, as log-odds, summed.

    Equal weights, not fitted: a pair comes first when both read a change. On the fit store the
    sum and the note model alone put the same planted changes in the first 75 cards (20 of 21
    reachable, against 10 by the judge alone); the sum ranks the first cards a little better
    (docs/benchmarks.md, "A model of what a change says"). It orders; it is not a floor: pairs
    ranked low still open on a later night. A floor (no card below a sum of 2) kept 19 of 20 of
    the fit store's planted changes in two thirds of the cards, but dropped 59 of the 133 held
    curated contradictions the judge asks about (w3): a contradiction not said as a change ("Alice
    loved the steak at dinner" beside "vegetarian for years") reads low here.
    """
    return _logit(judge_change) + _logit(says)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return float(np.log(p / (1 - p)))
