"""The words two notes share, weighed by how rare they are: the sweep's second way to find a pair.

A change is often said in other words than the fact it changes, and on a store of chat the dense
neighbours of a note are mostly turns of the same friendly small talk. On a held-out real store
(docs/benchmarks.md, "Review queues on real stores") the 8 dense neighbours held 10 of 24 planted
changes; ranked by the dense cosine plus this one (TF-IDF over the index's own BM25 terms, words in
more than one note in twenty left out as chatter), 17 of 24.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]
from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]

from engine.index.tokenize import tokenize
from memories.models import Note

CHATTER_SHARE = 0.05  # a term in more of the notes than this says nothing about which two belong together
MIN_NOTES = 200  # below this a share means a handful of notes: every term is kept


def rows(notes: Sequence[Note]) -> sparse.csr_matrix | None:
    """One unit-length TF-IDF row per note, or None when the notes share no telling word."""
    vectorizer = TfidfVectorizer(
        tokenizer=lambda text: tokenize(text, drop_stop_words=True),
        lowercase=False,
        token_pattern=None,
        sublinear_tf=True,
        max_df=CHATTER_SHARE if len(notes) >= MIN_NOTES else 1.0,
    )
    try:
        return vectorizer.fit_transform([note.content for note in notes]).tocsr()
    except ValueError:  # "empty vocabulary": nothing but chatter
        return None


def similarities(matrix: sparse.csr_matrix | None, i: int, size: int) -> np.ndarray:
    """The lexical similarity of note ``i`` to every note (zeros without a vocabulary)."""
    if matrix is None:
        return np.zeros(size, dtype=np.float32)
    return np.asarray((matrix @ matrix[i].T).todense(), dtype=np.float32).ravel()
