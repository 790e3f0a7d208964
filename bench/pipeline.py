"""The benchmarks' switchboard over the product's ranking (engine/retrieval/search.py: Ranking).

The product ranks one way; the ablation tables (bench/evaluate.py: variants) need each stage
switched off in turn, the first design's RRF fusion, a fixed dense share, other pools and
blends. ``Pipeline`` is a Ranking whose every setting is a field: ``Pipeline()`` ranks as the
product does, and ``dataclasses.replace`` makes the variants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from engine.config import EngineConfig, get_config
from engine.index.store import Hit
from engine.index.tokenize import tokenize
from engine.retrieval.fusion import dense_share, score_fuse
from engine.retrieval.heat import SCORE_STEP, tie_step
from engine.retrieval.search import Ranking


@dataclass(frozen=True)
class Pipeline(Ranking):
    """Which stages run; the defaults are the product's ranking."""

    dense: bool = True
    lexical: bool = True
    heat_boost: bool = True
    # "score": the legs' scaled scores mixed (engine/retrieval/fusion.py); "rrf": reciprocal rank
    # fusion, the first design, kept for the comparison rows.
    fusion: Literal["score", "rrf"] = "score"
    # The dense leg's share of the fused score; None = by query length (fusion.dense_share).
    dense_share: float | None = None
    pool_factor: int = Ranking.pool_factor
    pool_min: int = Ranking.pool_min
    # Drop function words from the BM25 query, as the product does.
    query_stop_words: bool = True
    # The forgetting-curve blend; None = AMEM_IMPORTANCE_WEIGHT, as the product does.
    importance_weight: float | None = None
    cjk_dense_weight: float = Ranking.cjk_dense_weight
    link_lift: float = Ranking.link_lift  # 0 switches the lift off
    link_lift_far: float = Ranking.link_lift_far
    date_boost: float = Ranking.date_boost  # 0 switches named dates off
    context_span: int = Ranking.context_span  # 0: no context, neighbours compete for the slots

    def query_terms(self, query: str) -> list[str]:
        return super().query_terms(query) if self.query_stop_words else tokenize(query)

    def legs(self, *args: Any, **kwargs: Any) -> tuple[list[Hit], list[Hit], float]:
        # A leg switched off is asked and its hits dropped: the ablations measure recall, not time.
        dense, lexical, vote = super().legs(*args, **kwargs)
        return (dense if self.dense else []), (lexical if self.lexical else []), vote

    def dense_vote(self, query: str) -> float:
        # Without the BM25 leg, the dense one ranks alone at full weight whatever the query's script.
        return super().dense_vote(query) if self.lexical else 1.0

    def fuse(
        self, dense: list[Hit], lexical: list[Hit], terms: list[str], vote: float, pool: int, rrf: dict[str, float]
    ) -> tuple[dict[str, float], float]:
        if self.fusion == "rrf":
            return rrf, tie_step(get_config().rrf_k)
        share = dense_share(len(terms), dense) if self.dense_share is None else self.dense_share
        return score_fuse(dense, lexical, share * vote, pool), SCORE_STEP

    def heat_weight(self, cfg: EngineConfig) -> float:
        return cfg.heat_weight if self.heat_boost else 0.0

    def importance_blend(self, cfg: EngineConfig) -> float:
        return cfg.importance_weight if self.importance_weight is None else self.importance_weight


FULL = Pipeline()


def try_settings(target: object, settings: list[str]) -> None:
    """``NAME=VALUE`` each (a benchmark's ``--ranking`` / ``--set``): the attribute set on ``target``
    (the product's RANKING, a module), the value read as the type the attribute has."""
    for setting in settings:
        name, _, value = setting.partition("=")
        setattr(target, name, type(getattr(target, name))(value))
