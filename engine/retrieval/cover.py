"""The final cut: ``limit`` matches that spread over sessions before filling up with one session's turns.

The link lift raises the turns next to a strong match (engine/retrieval/links.py), so one
session's neighbours could take most of an agent's ten slots while a second session that also
answers waits at rank 11. A session may hold ``cap`` of the matches until every other session
among the candidates has had its chance; the slots left are filled in ranked order. Notes without
a session (memories, facts, summaries) are never held back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol, TypeVar


class InSession(Protocol):
    @property
    def session(self) -> str: ...


T = TypeVar("T", bound=InSession)


def cover_sessions(ranked: Sequence[T], limit: int, cap: int) -> list[T]:
    """The first ``limit`` of ``ranked``, a session taking at most ``cap`` before the rest (0: no cap)."""
    if cap <= 0:
        return list(ranked[:limit])
    taken: Counter[str] = Counter()
    chosen: list[T] = []
    held: list[T] = []
    for item in ranked:
        if len(chosen) == limit:
            break
        if item.session and taken[item.session] >= cap:
            held.append(item)
            continue
        taken[item.session] += 1
        chosen.append(item)
    # Fewer sessions than slots: the held turns come back, best first, in their ranked place.
    if len(chosen) < limit and held:
        place = {id(item): i for i, item in enumerate(ranked)}
        chosen = sorted([*chosen, *held[: limit - len(chosen)]], key=lambda item: place[id(item)])
    return chosen
