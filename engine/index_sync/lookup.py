"""Internal index look-ups for the write side: dedup, link candidates, CRUD context.

Every query carries the caller's access filter inside the index query
(memories/access.py builds it), and every hit is re-read from the database and
re-checked. They query the index as it is (the outbox drainer keeps it current,
engine/index_sync/outbox.py); a look-up never indexes. Unlike a user-facing search these look-ups never heat notes: the
seed bumped ``retrieval_count`` on every internal query (research §17.10).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from engine import runtime
from memories import access
from memories.models import Agent, Note


@dataclass(frozen=True)
class Neighbour:
    """A note the caller may read and its cosine to the query vector (as the index scored it)."""

    note: Note
    score: float


def dense_neighbours(
    agent: Agent,
    vector: np.ndarray,
    limit: int,
    *,
    subject: str | None = None,
    exclude: Iterable[object] = (),
) -> list[Neighbour]:
    """The ``limit`` nearest notes ``agent`` may read, best first; ``exclude`` ids never appear."""
    if limit <= 0:
        return []
    skip = {str(i) for i in exclude}
    hits = runtime.store().query_dense(
        access.collection_for(agent), vector, access.index_filter(agent, subject=subject), limit + len(skip)
    )
    scores = {h.id: h.score for h in hits if h.id not in skip}
    notes = access.visible_notes(agent, list(scores), subject=subject)
    return [Neighbour(n, scores[str(n.pk)]) for n in notes][:limit]
