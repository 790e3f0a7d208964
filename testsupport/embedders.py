"""The test suite's embedder: a hashed bag of words, registered as ``AMEM_EMBED_MODEL=test-hash``.

Importing this module registers it (testsupport/settings.py does); the product never imports it.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from engine.index.embeddings import Embedder, register_provider

TEST_MODEL = "test-hash"

_HASH_TOKEN_RE = re.compile(r"[a-z0-9_]+|[\u4e00-\u9fff]+")


def hash_tokens(text: str) -> list[str]:
    """Latin words plus CJK runs cut into bigrams: enough for a deterministic bag of words."""
    tokens: list[str] = []
    for match in _HASH_TOKEN_RE.findall(text.lower()):
        if "\u4e00" <= match[0] <= "\u9fff" and len(match) > 2:
            tokens.extend(match[i : i + 2] for i in range(len(match) - 1))
        else:
            tokens.append(match)
    return tokens


class HashEmbedder(Embedder):
    """TEST ONLY (``AMEM_EMBED_MODEL=test-hash``): a hashed bag of words, L2-normalised.

    Same words → same vector, shared words → positive cosine, no model to load (the test
    suite's fast lane uses it for every test that does not measure retrieval quality).
    It has no notion of meaning: paraphrases score near zero, so never serve with it.
    """

    DIMENSION = 384  # MiniLM's, so fixtures sized for either model fit both
    multilingual = True  # CJK runs are hashed as bigrams: Chinese queries keep the dense vote

    @property
    def dimension(self) -> int:
        return self.DIMENSION

    def encode(self, texts: list[str], *, show_progress: bool = False) -> np.ndarray:
        rows = np.zeros((len(texts), self.DIMENSION), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in hash_tokens(text):
                # md5, not hash(): Python salts str hashes per process, vectors must not change.
                digest = hashlib.md5(token.encode()).digest()
                sign = 1.0 if digest[4] & 1 else -1.0
                rows[i, int.from_bytes(digest[:4], "little") % self.DIMENSION] += sign
            norm = float(np.linalg.norm(rows[i]))
            if norm:
                rows[i] /= norm
            else:
                rows[i, 0] = 1.0  # no words: still a unit vector, as the real models give
        return rows


register_provider(TEST_MODEL, HashEmbedder)
