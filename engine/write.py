"""Write paths. This module holds the cheap episodic write; add_memory builds on it.

``add_episodic``: quality gate → embed raw content → insert. No LLM, no dedup
(DESIGN §3), for hot loops; ``add_episodic_batch`` embeds many at once.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from engine import indexer, runtime
from engine.config import get_config
from engine.embeddings import to_bytes
from engine.errors import InvalidInput, NotFound
from engine.text import check_content, content_hash, embedding_text
from memories.models import EVERYONE, SHARED_AGENT, Agent, Note, NoteEvent

SCOPES = ("private", "shared")


@dataclass
class EpisodicItem:
    text: str
    subjects: Sequence[str] = ()
    sources: Sequence[str] = ()
    occurred_at: dt.datetime | None = None
    scope: str = "private"
    extra: dict = field(default_factory=dict)


def resolve_agent(agent: Agent | str) -> Agent:
    if isinstance(agent, Agent):
        if not agent.is_active:
            raise NotFound(f"agent {agent.pk!r} is not active")
        return agent
    found = Agent.objects.filter(pk=str(agent), is_active=True).first()
    if found is None:
        raise NotFound(f"no active agent {agent!r}")
    return found


def clean_labels(values: object, name: str, *, limit: int = 50) -> list[str]:
    """A list of short, non-empty strings (subjects, sources), de-duplicated in order."""
    if values is None:
        return []
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInput(f"{name} must be a list of strings")
    cleaned: list[str] = []
    for value in values:
        if not isinstance(value, str) or not value.strip() or len(value) > 200:
            raise InvalidInput(f"{name} must hold non-empty strings of at most 200 characters")
        if value.strip() not in cleaned:
            cleaned.append(value.strip())
    if len(cleaned) > limit:
        raise InvalidInput(f"{name} may hold at most {limit} entries")
    return cleaned


def access_fields(agent: Agent, scope: str) -> dict:
    """agent_id/owner/readers/writers for a new note of ``agent`` in ``scope`` (DESIGN §3)."""
    if scope not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}")
    if scope == "shared":
        if agent.collection:
            raise InvalidInput(
                f"agent {agent.pk!r} has its own collection (Mode B); shared notes live in the common index"
            )
        return {"agent_id": SHARED_AGENT, "owner": agent.pk, "readers": [EVERYONE], "writers": [agent.pk]}
    return {"agent_id": agent.pk, "owner": agent.pk, "readers": [agent.pk], "writers": [agent.pk]}


def _prepare(agent: Agent, item: EpisodicItem) -> Note:
    cfg = get_config()
    checked = check_content(item.text, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars)
    if item.occurred_at is not None and timezone.is_naive(item.occurred_at):
        raise InvalidInput("occurred_at must carry a time zone")
    return Note(
        content=checked.text,
        content_hash=content_hash(checked.text),
        ephemeral=checked.ephemeral,
        subjects=clean_labels(item.subjects, "subjects"),
        sources=clean_labels(item.sources, "sources", limit=1000),
        created_at=item.occurred_at or timezone.now(),
        index_dirty=True,
        revision=1,
        **access_fields(agent, item.scope),
    )


def add_episodic_batch(agent: Agent | str, items: Sequence[EpisodicItem], *, actor: str | None = None) -> list[Note]:
    """Validate all, embed all, insert all in one transaction: all or nothing."""
    agent = resolve_agent(agent)
    notes = [_prepare(agent, item) for item in items]
    if not notes:
        return []
    emb = runtime.embedder()
    vectors = emb.encode([embedding_text(n.content) for n in notes])
    for note, vector in zip(notes, vectors, strict=True):
        note.embedding, note.embedding_model = to_bytes(vector), emb.model_name
    with transaction.atomic():
        Note.objects.bulk_create(notes, batch_size=500)
        NoteEvent.objects.bulk_create(
            [
                NoteEvent(note=n, action="create", after={"content": n.content, "path": "episodic"}, actor=actor or agent.pk)
                for n in notes
            ],
            batch_size=500,
        )
        Agent.objects.filter(pk=agent.pk).update(last_write_at=timezone.now())
        indexer.sync_after_commit([n.pk for n in notes])
    return notes


def add_episodic(
    text: str,
    agent: Agent | str,
    *,
    scope: str = "private",
    subjects: Sequence[str] = (),
    sources: Sequence[str] = (),
    occurred_at: dt.datetime | None = None,
    actor: str | None = None,
) -> Note:
    """One event, no LLM and no dedup; returns the stored note."""
    item = EpisodicItem(text, subjects, sources, occurred_at, scope)
    return add_episodic_batch(agent, [item], actor=actor)[0]
