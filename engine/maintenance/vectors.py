"""Similar pairs from the notes' stored embeddings (the worker never queries the index).

Every note keeps the float32 bytes of its recipe embedding (docs/architecture.md §2), so the
cosine of two notes is the dot product of their stored, unit-length vectors.
``best_pairs`` scans the upper triangle of the similarity matrix a block of rows
at a time (about 16 MB per block), keeping only the best ``limit`` pairs that
pass the threshold and the caller's masks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine import runtime
from engine.index.embeddings import from_bytes
from memories.models import Note

# float32 rounding: a pair built at exactly the threshold must count as reaching it.
EPS = 1e-6
BLOCK_CELLS = 4_000_000


def load(notes: Sequence[Note]) -> tuple[list[Note], np.ndarray]:
    """The notes that have a stored vector from the current model, and their unit rows."""
    model = runtime.embedder().model_name
    kept: list[Note] = []
    rows: list[np.ndarray] = []
    for note in notes:
        vector = from_bytes(note.embedding) if note.embedding_model == model else None
        if vector is None:
            continue  # not embedded yet, or by another model: not comparable
        norm = float(np.linalg.norm(vector))
        if norm == 0:
            continue
        kept.append(note)
        rows.append(vector / norm)
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    return kept, np.vstack(rows).astype(np.float32)


def best_pairs(
    matrix: np.ndarray,
    threshold: float,
    limit: int,
    *,
    groups: Sequence[int] | None = None,
    fresh: Sequence[bool] | None = None,
) -> list[tuple[float, int, int]]:
    """The ``limit`` most similar pairs (i < j) with cosine ≥ ``threshold``, best first.

    ``groups``: pairs only within one group. ``fresh``: pairs with at least one
    fresh member (a pair of two notes judged before, both unchanged, is skipped).
    """
    n = len(matrix)
    if n < 2 or limit <= 0:
        return []
    group = np.asarray(groups) if groups is not None else np.zeros(n, dtype=np.int64)
    new = np.asarray(fresh, dtype=bool) if fresh is not None else np.ones(n, dtype=bool)
    step = max(1, BLOCK_CELLS // n)
    columns = np.arange(n)
    best: list[tuple[float, int, int]] = []
    for start in range(0, n - 1, step):
        stop = min(n, start + step)
        sims = matrix[start:stop] @ matrix.T
        rows = np.arange(start, stop)[:, None]
        mask = (columns[None, :] > rows) & (sims >= threshold - EPS)
        mask &= group[start:stop, None] == group[None, :]
        mask &= new[start:stop, None] | new[None, :]
        ii, jj = np.nonzero(mask)
        if not len(ii):
            continue
        values = sims[ii, jj]
        if len(values) > limit:
            top = np.argpartition(-values, limit - 1)[:limit]
            ii, jj, values = ii[top], jj[top], values[top]
        best.extend((float(v), int(i) + start, int(j)) for v, i, j in zip(values, ii, jj, strict=True))
        best = sorted(best, key=lambda p: (-p[0], p[1], p[2]))[:limit]
    return best


def group_ids(keys: Sequence[object]) -> list[int]:
    """Small integers standing for equal keys (for ``best_pairs(groups=…)``)."""
    seen: dict[object, int] = {}
    return [seen.setdefault(key, len(seen)) for key in keys]
