"""Fusing the dense and BM25 legs into one score per candidate (docs/retrieval.md, "Score fusion").

Each leg's scores are scaled to 0–1 over its own pool (the best hit 1, the pool's last 0) and
the two are mixed with a fixed share for the dense leg: ``score = a·dense + (1 − a)·bm25``,
divided by the weights that voted, so a score always lies in 0–1 and the tie-breakers that
add to it (heat, a named date, the link lift) mean the same whatever voted.

Reciprocal rank fusion (``rrf_fuse``), the first design, gave each leg a vote by rank alone:
a note that is rank 1 in BM25 by a wide margin counted as much as one that is rank 1 by a
hair, and with the default MiniLM, whose dense leg is the weaker one on conversation
memory, the fusion added little to BM25 (LoCoMo R@10 BM25 0.665, RRF 0.673). Mixing the
scaled scores keeps how far ahead a hit is: on LoCoMo, at the same pools, R@10 0.662 → 0.701
and R@1 0.240 → 0.307, and the link lift, whose share of a neighbour's score now carries that
margin too, gains more (docs/benchmarks.md, "LoCoMo round 3"). RRF stays for the comparison
rows of the benchmarks and the ``rrf`` field of a result.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.index.store import Hit

# The dense leg's share for a question-sized query whose dense leg is not clear. BM25 is the
# stronger leg on short questions whose rare words name the thing asked about (LoCoMo: 0.3 beat
# 0.4 and 0.5 as a fixed share).
DENSE_SHARE = 0.3
# ... and as its dense leg grows clear: the share rises from DENSE_SHARE to DENSE_SHARE_CLEAR as
# the spread of its cosines (the best hit's less the tenth's) goes from CLEAR_FROM to CLEAR_AT.
# On a store of chat turns that name the same two people, the best cosines crowd together
# (LoCoMo's tuning half: median spread 0.09) and BM25's rare words decide; on short personal
# notes ("Alex is vegetarian"), asked "what should I cook for Alex?", one note stands out to the
# dense model (median 0.29) while BM25 follows "cook" to a cooking class. Chosen on LoCoMo's
# tuning half and the fit split of bench/personal_sets (docs/benchmarks.md, "A clear dense leg").
DENSE_SHARE_CLEAR = 0.7
CLEAR_FROM, CLEAR_AT = 0.05, 0.2
# The spread is measured down to this hit, or to the leg's last in a store of fewer notes (on
# eight or nine notes drawn from the same fit stores: hit@1 0.680 → 0.747 and 0.667 → 0.726).
SPREAD_RANK = 10
# A query longer than this many BM25 terms reads as a conversation, not a question: every word
# said in passing gets a BM25 vote, and the dense vector holds its gist better (MADial en,
# whose queries are dialogue histories of 18–100 terms: R@10 0.745 at 0.3, 0.786 at 0.5;
# LoCoMo's questions have at most 15 terms).
LONG_QUERY_TERMS = 16
DENSE_SHARE_LONG = 0.5


def dense_share(query_terms: int, dense: Sequence[Hit] = ()) -> float:
    """The dense leg's share of the fused score for a query of ``query_terms`` BM25 terms whose
    dense leg found ``dense`` (best first)."""
    if query_terms > LONG_QUERY_TERMS:
        return DENSE_SHARE_LONG
    if len(dense) < 2:
        return DENSE_SHARE
    spread = dense[0].score - dense[min(SPREAD_RANK, len(dense)) - 1].score
    clear = min(max((spread - CLEAR_FROM) / (CLEAR_AT - CLEAR_FROM), 0.0), 1.0)
    return DENSE_SHARE + (DENSE_SHARE_CLEAR - DENSE_SHARE) * clear


def scaled(hits: Sequence[Hit], floor: float | None = None) -> dict[str, float]:
    """Min-max over one leg's pool: the best hit 1, the last 0 (or ``floor`` 0); a pool of equal
    scores is all 1."""
    if not hits:
        return {}
    top = max(h.score for h in hits)
    bottom = min(h.score for h in hits) if floor is None else floor
    spread = top - bottom
    if spread <= 0:
        return {h.id: 1.0 for h in hits}
    return {h.id: (h.score - bottom) / spread for h in hits}


def score_fuse(dense: Sequence[Hit], lexical: Sequence[Hit], dense_weight: float, pool: int) -> dict[str, float]:
    """``dense_weight``·dense + (1 − ``dense_weight``)·BM25 over the scaled legs, in 0–1.

    A note found by one leg only gets 0 from the other. A leg with no hits (skipped, or nothing
    shares a word with the query) gives up its weight, so the other alone still spans 0–1. When
    fewer than ``pool`` notes share a word with the query, every BM25 match is in the pool and
    its floor is 0 (no shared word), so the weakest match keeps its credit in a small store.
    """
    d = scaled(dense)
    b = scaled(lexical, floor=0.0 if len(lexical) < pool else None)
    weights = (dense_weight if dense else 0.0, (1.0 - dense_weight) if lexical else 0.0)
    total = sum(weights) or 1.0
    fused: dict[str, float] = {}
    for note_id in [*d, *(i for i in b if i not in d)]:
        fused[note_id] = (weights[0] * d.get(note_id, 0.0) + weights[1] * b.get(note_id, 0.0)) / total
    return fused


def rrf_fuse(ranked_lists: list[list[str]], k: int, weights: Sequence[float] | None = None) -> dict[str, float]:
    """Reciprocal rank fusion with 1-based ranks: each list adds weight/(k + rank) (weight 1 by default)."""
    scores: dict[str, float] = {}
    for i, ranked in enumerate(ranked_lists):
        weight = 1.0 if weights is None else weights[i]
        for rank, note_id in enumerate(ranked, start=1):
            scores[note_id] = scores.get(note_id, 0.0) + weight / (k + rank)
    return scores
