"""Sentences without a model: where one ends, the first one, and two texts kept as one (each fact once,
never both sides of a contradiction). The offline model's merges (engine/llm/offline.py), the
pending-merge job's offline fold, episodes and reflections read through it."""

from __future__ import annotations

import re

from engine.reading.contradiction_rules import contradiction
from engine.reading.stop_words import NOT_CONTENT

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


def keep_both(a: str, b: str) -> str:
    """A followed by the sentences of B that add something A does not already say.

    A sentence of B adds nothing when its content words (no stop words, no reporting verbs)
    all occur in A already — the same sentence again, or reworded (an offline fold
    once produced "Alex enjoyed a wine bar in Neukölln. Alex recommended a wine bar in
    Neukölln. Alex mentioned …"). Each distinct fact is kept once, and a sentence of B that a
    sentence of A contradicts is left out: the merged text never says both.
    """
    a_clean = " ".join(a.split())
    kept = sentences(a_clean)
    seen = {_norm(s) for s in kept}
    known = _content_words(a_clean)
    extra: list[str] = []
    for sentence in sentences(b):
        words = _content_words(sentence)
        if _norm(sentence) in seen or (words and words <= known):
            continue
        # A sentence of B that A's sentences contradict is dropped: A is the note kept, and the
        # merged text must never say both ("Ana no longer works at Farfetch. Ana works at Farfetch.").
        if any(contradiction(sentence, mine) or contradiction(mine, sentence) for mine in kept):
            continue
        extra.append(sentence)
        seen.add(_norm(sentence))
        known |= words
    return " ".join([a_clean, *extra]).strip() if a_clean else " ".join(extra)


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[^\W_]+", text.lower()) if w not in NOT_CONTENT and w not in REPORTING}


def _norm(sentence: str) -> str:
    return re.sub(r"[\W_]+", "", sentence.lower())
