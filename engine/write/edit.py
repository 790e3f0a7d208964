"""Changes to one existing note by id: replace its text, or retire it.

Both go through memories/access.py (NotFound if the caller cannot read the
note, PermissionDenied if it may only read it), keep the previous state in the
note's history, and re-index through the outbox. Nothing is hard-deleted.
A new text is re-constructed and re-embedded with the one recipe, so keywords,
tags and context never describe a text the note no longer holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from engine import runtime
from engine.config import get_config
from engine.errors import NotFound, PermissionDenied
from engine.index.embeddings import to_bytes
from engine.index_sync import outbox
from engine.text import check_content, content_hash
from engine.write.construct import apply_fields, construct, fields_of, recipe_vectors
from engine.write.pipeline import clean_labels, clean_metadata, resolve_agent
from memories import access
from memories.models import Agent, Note, NoteEvent


def _locked_for_write(agent: Agent, note_id: object) -> Note:
    """Re-read under lock inside the transaction: rights may have changed since the first check."""
    note = Note.objects.select_for_update().filter(pk=access.get_note_for(agent, note_id).pk).first()
    if note is None or not access.can_read(agent.pk, note):
        raise NotFound("no such note")
    if not access.can_write(agent.pk, note):
        raise PermissionDenied("this note is read-only for you")
    return note


def update_memory(
    note_id: object,
    text: str | bytes,
    agent: Agent | str,
    *,
    sources: Sequence[str] = (),
    actor: str | None = None,
    action: str = "crud_update",
) -> Note:
    """Replace a note's text; the old text and fields stay in a ``crud_update`` event."""
    agent = resolve_agent(agent)
    cfg = get_config()
    checked = check_content(text, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars)
    extra_sources = clean_labels(sources, "sources", limit=1000)
    target = access.get_note_for_write(agent, note_id)
    fields = construct(checked.text, agent.pk, note_type=target.note_type)
    vector = recipe_vectors([(checked.text, fields)])[0]
    with transaction.atomic():
        note = _locked_for_write(agent, target.pk)
        before = fields_of(note)
        note.content, note.content_hash, note.ephemeral = checked.text, content_hash(checked.text), checked.ephemeral
        apply_fields(note, fields)
        note.embedding, note.embedding_model = to_bytes(vector), runtime.embedder().model_name
        note.sources = list(dict.fromkeys([*(note.sources or []), *extra_sources]))
        note.mark_dirty()
        note.save()
        NoteEvent.objects.create(
            note=note, action=action, before=before, after=fields_of(note), actor=actor or agent.pk
        )
        outbox.sync_after_commit([note.pk])
    return note


def retire_memory(note_id: object, agent: Agent | str, *, actor: str | None = None, reason: str = "") -> Note:
    """Soft-delete: the note leaves every search but keeps its row and history."""
    agent = resolve_agent(agent)
    access.get_note_for_write(agent, note_id)
    with transaction.atomic():
        note = _locked_for_write(agent, note_id)
        note.is_active = False
        note.mark_dirty()
        note.save()
        NoteEvent.objects.create(
            note=note,
            action="retire",
            before={"is_active": True},
            after={"is_active": False, "reason": reason},
            actor=actor or agent.pk,
        )
        outbox.sync_after_commit([note.pk])
    return note


def set_metadata(note_id: object, metadata: object, agent: Agent | str, *, actor: str | None = None) -> Note:
    """Replace a note's caller-supplied metadata; the previous one stays in a ``metadata`` event.

    Nothing amem ranks or builds reads metadata, so the note is neither re-constructed nor re-indexed.
    """
    agent = resolve_agent(agent)
    cleaned = clean_metadata(metadata)
    access.get_note_for_write(agent, note_id)
    with transaction.atomic():
        note = _locked_for_write(agent, note_id)
        before = dict(note.metadata or {})
        note.metadata = cleaned
        note.save(update_fields=["metadata", "updated_at"])
        NoteEvent.objects.create(
            note=note,
            action="metadata",
            before={"metadata": before},
            after={"metadata": cleaned},
            actor=actor or agent.pk,
        )
    return note
