"""Link a new note to its neighbours (docs/architecture.md §3).

Candidates: the top ``link_top_k`` (6) notes the caller may read, by recipe
vector against recipe vector, with cosine ≥ ``link_min_sim`` (0.3). One batched
judgement picks among them; ids come only from the candidates offered. Links
are bidirectional, but a back-link is a change to the other note, so it is
written only into notes the caller may write.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine import runtime
from engine.config import EngineConfig
from engine.index_sync import lookup
from engine.llm.types import Candidate
from memories import access
from memories.models import Agent, Link, Note, NoteEvent


@dataclass(frozen=True)
class LinkPlan:
    targets: tuple[Note, ...] = ()  # new note → target
    back: tuple[Note, ...] = ()  # target → new note (targets the caller may write)


def candidates(
    agent: Agent, vector: np.ndarray, cfg: EngineConfig, *, exclude: Sequence[object] = ()
) -> list[lookup.Neighbour]:
    """Readable neighbours worth offering to the judgement."""
    found = lookup.dense_neighbours(agent, vector, cfg.link_top_k, exclude=exclude)
    return [nb for nb in found if nb.score >= cfg.link_min_sim]


def plan(agent: Agent, text: str, found: Sequence[lookup.Neighbour]) -> LinkPlan:
    """One judgement call over all candidates; nothing is written yet."""
    if not found:
        return LinkPlan()
    offered = {str(nb.note.pk): nb.note for nb in found}
    chosen = runtime.llm().judge_links(text, [Candidate(i, n.content) for i, n in offered.items()], agent_id=agent.pk)
    # The LLM layer validates ids too; checking again here keeps this module's promise on its own.
    targets = tuple(offered[i] for i in dict.fromkeys(chosen) if i in offered)
    return LinkPlan(targets, tuple(t for t in targets if access.can_write(agent.pk, t)))


def create(note: Note, link_plan: LinkPlan, agent_id: str, actor: str, *, reason: str = "write") -> list[str]:
    """Write the planned rows (inside the caller's transaction); returns the linked ids.

    Targets are re-read: one retired or made read-only since the judgement gets
    no link, or no back-link.
    """
    if not link_plan.targets:
        return []
    live = {n.pk: n for n in Note.objects.active().filter(pk__in=[t.pk for t in link_plan.targets])}
    rows = [
        Link(source=note, target_id=t.pk, created_by=actor, reason=reason) for t in link_plan.targets if t.pk in live
    ]
    back = [live[t.pk] for t in link_plan.back if t.pk in live and access.can_write(agent_id, live[t.pk])]
    rows += [Link(source_id=t.pk, target=note, created_by=actor, reason=reason) for t in back]
    Link.objects.bulk_create(rows, ignore_conflicts=True)
    NoteEvent.objects.bulk_create(
        [NoteEvent(note_id=t.pk, action="link", after={"linked_from": str(note.pk)}, actor=actor) for t in back]
    )
    return [str(t.pk) for t in link_plan.targets if t.pk in live]
