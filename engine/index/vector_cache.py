"""A small in-process LRU of text → vector, so one text is embedded once.

A write embeds the same text several times: the raw text for dedup, again in the
offline rules (note type, link judging, evolution), and the stored notes it compares
against were embedded by earlier writes; a search embeds a query an agent repeats
(two embeddings of the same text per write, query embedding ≈ 50 % of a
search). Vectors are deterministic for a model, so a cached vector is the vector.
4,096 rows of 384 floats are ~6 MB. This module does not import Django.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

DEFAULT_SIZE = 4096


class VectorCache:
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self._rows: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def encode(self, kind: str, texts: Sequence[str], compute: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        """Vectors for ``texts``; only texts not seen lately go to ``compute`` (once each, in one batch)."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for text in texts:
                row = self._rows.get((kind, text))
                if row is not None:
                    self._rows.move_to_end((kind, text))
                    found[text] = row
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            fresh = np.asarray(compute(missing), dtype=np.float32)
            with self._lock:
                for text, row in zip(missing, fresh, strict=True):
                    found[text] = row.copy()
                    self._rows[(kind, text)] = found[text]
                while len(self._rows) > self.size:
                    self._rows.popitem(last=False)
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
