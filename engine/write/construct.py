"""Note construction and the one embedding recipe applied to its result.

Construction (fast tier) derives keywords, tags, context, category, note type
and topics from a text. The stored vector of every constructed note is the
embedding of ``embedding_text(content, keywords, tags, context)`` (docs/architecture.md §3):
whatever path wrote or changed the note, vectors in one index stay comparable.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine import runtime
from engine.errors import InvalidInput
from engine.llm.types import NoteFields
from engine.text import embedding_text
from memories.models import Note

NOTE_TYPES = (Note.MEMORY, Note.KNOWLEDGE)


def check_note_type(note_type: str | None) -> str | None:
    if note_type is not None and note_type not in NOTE_TYPES:
        raise InvalidInput(f"note_type must be one of {', '.join(NOTE_TYPES)}")
    return note_type


def construct(text: str, agent_id: str, *, note_type: str | None = None) -> NoteFields:
    """The LLM's (or offline rules') fields for ``text``; a caller-given note type wins."""
    fields = runtime.llm().construct(text, agent_id=agent_id)
    if note_type is None or note_type == fields.note_type:
        return fields
    if note_type == Note.KNOWLEDGE:
        # Topics are only produced for knowledge notes; the keywords are the best stand-in.
        return replace(fields, note_type=note_type, topics=fields.topics or fields.keywords[:3])
    return replace(fields, note_type=note_type, topics=[])


def recipe_vectors(items: list[tuple[str, NoteFields]]) -> np.ndarray:
    """One batch of recipe embeddings for (content, fields) pairs."""
    texts = [embedding_text(content, f.keywords, f.tags, f.context) for content, f in items]
    return runtime.embedder().encode(texts)


def apply_fields(note: Note, fields: NoteFields) -> None:
    """Copy constructed fields onto a note (not saved)."""
    note.keywords = list(fields.keywords)
    note.tags = list(fields.tags)
    note.context = fields.context
    note.category = fields.category
    note.note_type = fields.note_type
    note.topics = list(fields.topics)
    note.confidence = fields.confidence


def fields_of(note: Note) -> dict:
    """The constructed fields as they stand, for history entries."""
    return {
        "content": note.content,
        "keywords": list(note.keywords or []),
        "tags": list(note.tags or []),
        "context": note.context,
        "category": note.category,
        "note_type": note.note_type,
        "topics": list(note.topics or []),
    }
