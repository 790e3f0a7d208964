"""Search: dense + BM25 from the index, fused by RRF, read back from the database.

Every scope filter is inside both index queries (memories/access.py builds
them); results are re-read from the database and re-checked, so a stale index
entry can never surface a retired or foreign note (DESIGN §2, §4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db.models import F
from django.utils import timezone

from engine import indexer, runtime
from engine.config import get_config
from engine.embeddings import from_bytes
from engine.errors import InvalidInput
from engine.store import Hit, bm25_query_vector, cosine
from engine.tokenize import tokenize
from memories import access
from memories.models import Agent, Note

MAX_LIMIT = 100


@dataclass
class Result:
    note: Note
    via: str
    similarity: float
    rrf: float
    explain: dict = field(default_factory=dict)


def rrf_fuse(ranked_lists: list[list[str]], k: int) -> dict[str, float]:
    """Reciprocal rank fusion with 1-based ranks: each list adds 1/(k + rank)."""
    scores: dict[str, float] = {}
    for ranked in ranked_lists:
        for rank, note_id in enumerate(ranked, start=1):
            scores[note_id] = scores.get(note_id, 0.0) + 1.0 / (k + rank)
    return scores


def dense_pool_size(limit: int, visible: int) -> int:
    return min(max(4 * limit, 20), visible)


def search(
    query: str,
    agent: Agent,
    *,
    limit: int = 5,
    subject: str | None = None,
    heat: bool = True,
) -> list[Result]:
    """Top ``limit`` notes for ``query`` that ``agent`` may read."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    cfg = get_config()
    if indexer.has_dirty():
        indexer.sync_dirty()
    store = runtime.store()
    collection = access.collection_for(agent)
    flt = access.index_filter(agent, subject=subject)
    visible = store.count(collection, flt)
    if visible == 0:
        return []
    pool = dense_pool_size(limit, visible)
    qvec = runtime.embedder().encode_one(query)
    dense = store.query_dense(collection, qvec, flt, pool)
    lexical = store.query_sparse(collection, bm25_query_vector(tokenize(query)), flt, pool)
    fused = rrf_fuse([[h.id for h in dense], [h.id for h in lexical]], cfg.rrf_k)
    ranked = sorted(fused, key=lambda i: -fused[i])
    notes = access.visible_notes(agent, ranked, subject=subject)[:limit]
    dense_scores = {h.id: h.score for h in dense}
    results = [
        Result(n, "match", dense_scores.get(str(n.pk)) or _similarity(qvec, n), fused[str(n.pk)]) for n in notes
    ]
    if heat and results:
        Note.objects.filter(pk__in=[r.note.pk for r in results]).update(
            retrieval_count=F("retrieval_count") + 1, last_accessed=timezone.now()
        )
    return results


def _similarity(qvec: np.ndarray, note: Note) -> float:
    vector = from_bytes(note.embedding)
    return cosine(qvec, vector) if vector is not None else 0.0


__all__ = ["Hit", "Result", "rrf_fuse", "search"]
