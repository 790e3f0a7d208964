"""Sentences without a model: where one ends, and the first one. Merged texts
(engine/reading/merged_text.py), episodes and reflections read through it."""

from __future__ import annotations

import re

SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def first_sentence(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    sentence = SENTENCE_END.split(flat, maxsplit=1)[0] if flat else ""
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(" ".join(text.split())) if s.strip()]


# Verbs that report a fact rather than state one: "Alex mentioned a wine bar" adds nothing
# to "Alex enjoyed a wine bar".
REPORTING = frozenset(
    ["said", "says", "mentioned", "mentions", "told", "tells", "noted", "notes", "added", "adds", "shared", "shares"]
)
