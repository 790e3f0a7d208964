"""How likely a note holds little worth keeping: a logistic model over the note's multilingual vector.

The quality scan's rules (engine/maintenance/text_quality.py, engine/reading/chatter.py) catch
what a word list can: "ok thanks!", "就是之前说的那个事情". On real chat they catch almost nothing
(recall 0.00–0.035 on every labelled file, bench/curation/quality_real.py): a real chit-chat
turn or a fact about "她" without a name carries content words. This model reads the whole
note instead: multilingual-e5-small's ``query:`` vector (engine/judgments/note_vectors.py, English
and Chinese alike) times 384 fitted weights (note_quality_weights.json).

It was fitted on real notes labelled blind (bench/curation/sets/real, the fit split: eight
authors, four sources) and is measured on other authors and sources (the held split); the
model card is note_quality.md beside this file, the refit command
``.venv/bin/python -m bench.curation.fit_quality --write``.
"""

from __future__ import annotations

import numpy as np

from engine.judgments import fitted
from engine.judgments.note_vectors import logistic, vectors

LITTLE_TO_KEEP = "little_to_keep"
MODEL = fitted.load("note_quality")
FLAG_AT = MODEL.chosen["FLAG_AT"]


def likelihoods_of(rows: np.ndarray) -> np.ndarray:
    """The likelihood, per vector, that a reviewer would not keep the note."""
    return logistic(rows, MODEL.weights, MODEL.bias)


def likelihoods(texts: list[str]) -> list[float]:
    """The likelihood, per note, that a reviewer would not keep it."""
    return [float(p) for p in likelihoods_of(vectors(texts))]


def flags(likelihood: float | None) -> bool:
    """Whether a note of this likelihood holds little worth keeping (``FLAG_AT``); ``None``: not read."""
    return likelihood is not None and likelihood >= FLAG_AT


def little_to_keep(texts: list[str]) -> list[bool]:
    """Whether each note is likelier than ``FLAG_AT`` to hold nothing a reviewer would keep."""
    return [flags(p) for p in likelihoods(texts)]
