"""Importance (1–10) at write, and the optional forgetting-curve blend in ranking.

LLM mode: the construct call returns ``importance`` with the other fields (no
extra call). Offline, or when the model left it out: the seed's embedding-anchor
classifier: the note's vector is compared with example sentences of four levels
(critical / high / medium / low) and the best level wins, nudged by two format
hints the seed also used (money amounts and dates up, very short texts down). It
costs one dot product per level: the vector is already computed for the index.

The blend (``AMEM_IMPORTANCE_WEIGHT``, 0 = off) multiplies a search candidate's
fused score by ``1 + w · importance/10 · e^(−0.01·days)``, the seed's forgetting
curve, with days counted back from the newest candidate so a store nobody wrote to
for a month does not rank differently from a fresh one.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import threading

import numpy as np

from engine import runtime

LEVELS: dict[int, list[str]] = {
    9: [
        "A critical fact about health, safety, money, legal status or a hard deadline.",
        "The user is allergic to penicillin; the visa expires on 3 March; the rent is 2,000 euros.",
        "关于健康、安全、金钱、法律身份或最后期限的关键事实。",
    ],
    7: [
        "An important decision, commitment, relationship or long-lasting preference.",
        "We decided to migrate to PostgreSQL; she is my sister; I always travel by train.",
        "重要的决定、承诺、人际关系或长期偏好。",
    ],
    5: [
        "A useful detail about the user's work, plans, habits or interests.",
        "I am reading a book about gardening and plan to visit the museum next week.",
        "关于工作、计划、习惯或兴趣的有用细节。",
    ],
    2: [
        "Small talk, greetings, passing remarks and trivia that will not matter later.",
        "Nice weather today, haha, thanks, see you later.",
        "寒暄、闲聊和以后不会再用到的琐事。",
    ],
}
DEFAULT = 5
DECAY_PER_DAY = 0.01
_MONEY_RE = re.compile(r"[$€£¥]\s?\d|\d\s?(?:dollars|euros|usd|eur|元)\b", re.IGNORECASE)
_DATE_RE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\d{1,2}月\d{1,2}日",
    re.IGNORECASE,
)

_anchors: dict[str, tuple[list[int], np.ndarray]] = {}
_lock = threading.Lock()


def clamp(value: int | None) -> int | None:
    return None if value is None else max(1, min(10, int(value)))


def _anchor_vectors() -> tuple[list[int], np.ndarray]:
    embedder = runtime.embedder()
    with _lock:
        if embedder.model_name not in _anchors:
            labelled = [(level, text) for level, texts in LEVELS.items() for text in texts]
            vectors = np.asarray(embedder.encode([t for _, t in labelled]), dtype=np.float32)
            _anchors[embedder.model_name] = ([lvl for lvl, _ in labelled], vectors)
        return _anchors[embedder.model_name]


def rate(text: str, vector: np.ndarray | None) -> int:
    """The offline importance of ``text`` whose (normalised) embedding is ``vector``."""
    level = DEFAULT
    if vector is not None:
        levels, anchors = _anchor_vectors()
        scores = anchors @ np.asarray(vector, dtype=np.float32)
        level = levels[int(np.argmax(scores))]
    if _MONEY_RE.search(text):
        level += 1
    if _DATE_RE.search(text):
        level += 1
    if len(text.strip()) < 25:
        level -= 1
    return clamp(level) or DEFAULT


def forgetting_factor(importance: int | None, created_at: dt.datetime, newest: dt.datetime, weight: float) -> float:
    """1 + w · importance/10 · e^(−0.01·days since the newest candidate); 1.0 when the blend is off."""
    if weight <= 0:
        return 1.0
    days = max(0.0, (newest - created_at).total_seconds() / 86400)
    return 1.0 + weight * ((importance or DEFAULT) / 10) * math.exp(-DECAY_PER_DAY * days)
