"""Evolution (docs/architecture.md §3): a new note refines the context and tags of its linked neighbours.

It runs on every ``evolve_every``-th (20) link-producing write of an agent. The
count lives on the Agent row and is bumped with one UPDATE inside a
transaction, so concurrent writers in any number of processes never share a
number (the seed kept a global counter in a file, unlocked).

Only up to ``evolve_max_neighbours`` (3) linked notes the caller may write are
offered; updates and suggested connections naming any other id are dropped.
Every neighbour change appends an ``update_neighbor`` event and re-embeds the
neighbour with the one recipe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.db import transaction
from django.db.models import F

from engine import runtime
from engine.config import EngineConfig
from engine.index.embeddings import to_bytes
from engine.llm.types import Neighbour
from engine.text import embedding_text
from memories import access
from memories.models import Agent, Link, Note, NoteEvent


@dataclass(frozen=True)
class NeighbourChange:
    note: Note
    revision: int
    context: str
    tags: list[str]
    vector: np.ndarray


@dataclass(frozen=True)
class EvolvePlan:
    changes: list[NeighbourChange] = field(default_factory=list)
    connections: list[Note] = field(default_factory=list)


def count_link_write(agent: Agent) -> int:
    """Bump and return the agent's link-producing write count, atomically."""
    with transaction.atomic():
        Agent.objects.filter(pk=agent.pk).update(link_write_count=F("link_write_count") + 1)
        # Same transaction: the row stays locked by our UPDATE until we have read it back.
        return Agent.objects.filter(pk=agent.pk).values_list("link_write_count", flat=True).get()


def due(count: int, every: int) -> bool:
    return every > 0 and count > 0 and count % every == 0


def plan(agent: Agent, new_text: str, linked: Sequence[Note], cfg: EngineConfig) -> EvolvePlan:
    """Ask for neighbour updates (one call) and embed the changed neighbours; writes nothing."""
    chosen = [n for n in linked if access.can_write(agent.pk, n)][: cfg.evolve_max_neighbours]
    if not chosen:
        return EvolvePlan()
    offered = [Neighbour(str(n.pk), n.content, n.context, list(n.tags or [])) for n in chosen]
    result = runtime.llm().evolve(new_text, offered, agent_id=agent.pk)
    by_id = {str(n.pk): n for n in chosen}
    pending: list[tuple[Note, str, list[str]]] = []
    for update in result.updates:
        note = by_id.get(update.id)
        if note is None or any(p[0] is note for p in pending):
            continue
        context = update.context if update.context is not None else note.context
        tags = list(update.tags) if update.tags is not None else list(note.tags or [])
        if context != note.context or tags != list(note.tags or []):
            pending.append((note, context, tags))
    vectors = runtime.embedder().encode(
        [embedding_text(n.content, n.keywords, tags, context) for n, context, tags in pending]
    )
    changes = [
        NeighbourChange(n, n.revision, context, tags, vector)
        for (n, context, tags), vector in zip(pending, vectors, strict=True)
    ]
    connections = [by_id[i] for i in dict.fromkeys(result.connections) if i in by_id]
    return EvolvePlan(changes, connections)


def apply(evolve_plan: EvolvePlan, new_note: Note, agent_id: str, actor: str) -> list[str]:
    """Apply the plan inside the caller's transaction; returns the ids of changed neighbours.

    A neighbour changed by someone else since it was read is left alone rather
    than overwritten with an update computed from its old state.
    """
    model = runtime.embedder().model_name
    changed: list[str] = []
    # Neighbours locked in id order, like every multi-row writer (engine/locking.py).
    for change in sorted(evolve_plan.changes, key=lambda c: str(c.note.pk)):
        note = Note.objects.select_for_update().filter(pk=change.note.pk).first()
        if note is None or note.revision != change.revision or not access.can_write(agent_id, note):
            continue
        before = {"context": note.context, "tags": list(note.tags or [])}
        note.context, note.tags = change.context, list(change.tags)
        note.embedding, note.embedding_model = to_bytes(change.vector), model
        note.mark_dirty()
        note.save(
            update_fields=["context", "tags", "embedding", "embedding_model", "index_dirty", "revision", "updated_at"]
        )
        NoteEvent.objects.create(
            note=note,
            action="update_neighbor",
            before=before,
            after={"context": note.context, "tags": note.tags, "triggered_by": str(new_note.pk)},
            actor=actor,
        )
        changed.append(str(note.pk))
    _strengthen(evolve_plan.connections, new_note, agent_id, actor)
    return changed


def _strengthen(connections: Sequence[Note], new_note: Note, agent_id: str, actor: str) -> None:
    """Make sure each suggested connection is linked both ways (they are real, writable neighbours)."""
    for target in connections:
        live = Note.objects.active().filter(pk=target.pk).first()
        if live is None or not access.can_write(agent_id, live):
            continue
        made = []
        for source_id, target_id in ((new_note.pk, live.pk), (live.pk, new_note.pk)):
            _, created = Link.objects.get_or_create(
                source_id=source_id, target_id=target_id, defaults={"created_by": actor, "reason": "evolve"}
            )
            if created:
                made.append(str(target_id))
        if made:
            NoteEvent.objects.create(note=live, action="strengthen", after={"connected": str(new_note.pk)}, actor=actor)
