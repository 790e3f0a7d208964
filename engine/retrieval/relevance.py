"""How likely a match bears on the query: a probability a reader would agree with, not a rank.

The fused score is scaled to each search's own best hit, so the best of nothing scores high; the
raw cosine of the English MiniLM sits around 0.2–0.4 for the note that answers a short question and
is 0 for a Chinese query it cannot read (engine/retrieval/language.py). Neither makes a floor.
``relevance`` is a logistic model over what the search knows of one match: its cosine (when the
query was embedded), the share of the query's terms the note holds, and its BM25 score. It was
fitted on questions asked of real chat stores and labelled blind (bench/relevance_sets/, ``python
-m bench relevance fit``); its weights and the floor chosen on the fit split are in
``relevance_weights.py``, and the held split's precision and recall are in docs/benchmarks.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.index.tokenize import tokenize
from engine.retrieval import relevance_weights


def coverage(terms: Sequence[str], content: str) -> float:
    """The share of the query's distinct BM25 terms that ``content`` holds."""
    wanted = set(terms)
    if not wanted:
        return 0.0
    return len(wanted & set(tokenize(content))) / len(wanted)


def features(terms: Sequence[str], content: str, similarity: float, bm25: float | None) -> list[float]:
    """What the model reads of one match: cosine, term coverage, log(1 + BM25 score)."""
    return [float(similarity), coverage(terms, content), math.log1p(max(bm25 or 0.0, 0.0))]


def probability(weights: Sequence[float], x: Sequence[float]) -> float:
    z = weights[0] + sum(w * v for w, v in zip(weights[1:], x, strict=True))
    return 1.0 / (1.0 + math.exp(-z))


def relevance(terms: Sequence[str], content: str, similarity: float, bm25: float | None, *, model: str | None) -> float:
    """The probability that the note bears on the query. ``model``: the embedding model that gave
    ``similarity``, None when the query had no vector (a Chinese query on the English-only model).
    Cosines are the model's own scale, so a model the weights were not fitted for is read by its
    words only, like a query without a vector."""
    x = features(terms, content, similarity, bm25)
    dense = relevance_weights.EMBEDDED.get(model) if model is not None else None
    if dense is not None:
        return probability(dense, x)
    return probability(relevance_weights.WORDS_ONLY, x[1:])


__all__ = ["coverage", "features", "probability", "relevance"]
