"""amem notes and their history in the shapes mem0's client returns to its callers.

A memory: ``id``, ``memory`` (the text), ``user_id`` / ``agent_id`` / ``run_id`` / ``app_id``,
``hash``, ``metadata``, ``categories``, ``created_at``, ``updated_at`` (ISO 8601), ``score`` on a
search, and amem's own ``surrounding`` on a search (the turns around a match in its conversation:
``id``, ``memory``, ``position``; mem0's client passes unknown keys through). A history entry:
``id``, ``memory_id``, ``event`` (ADD, UPDATE, DELETE), ``old_memory``, ``new_memory``,
``actor_id``, ``is_deleted``, ``created_at``, ``updated_at``.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.retrieval.search import Result
from memories.models import Note, NoteEvent

# amem's write outcomes as mem0's events: a new note is an ADD, a fold into a similar one an
# UPDATE of that note, an exact duplicate nothing (mem0's NONE).
EVENT_FOR_OUTCOME = {"created": "ADD", "flagged": "ADD", "conflict": "ADD", "folded": "UPDATE", "duplicate": "NONE"}
# Note events that bring a note's text into being or take it away (the rest: links, flags, reviews
# without a new text, are amem's own bookkeeping and not mem0 events).
CREATING = ("create", "import", "episode", "reflection", "restore")
REMOVING = ("retire", "erase")


def user_of(note: Note, named: str | None = None) -> str | None:
    """The user a note is about: the one a filter named, if the note names it, else its first subject."""
    subjects = note.subjects or []
    if named and named in subjects:
        return named
    return subjects[0] if subjects else None


def found(result: Result, *, user: str | None = None) -> dict:
    """A search result: the memory with its score and the turns around it."""
    answer = memory(result.note, user=user, score=round(result.score, 6))
    answer["surrounding"] = [
        {"id": str(s.note.pk), "memory": s.note.content, "position": s.position} for s in result.surrounding
    ]
    return answer


def memory(note: Note, *, user: str | None = None, score: float | None = None) -> dict:
    answer = {
        "id": str(note.pk),
        "memory": note.content,
        "user_id": user_of(note, user),
        "agent_id": note.owner,
        "run_id": note.session or None,
        "app_id": None,
        "hash": note.content_hash,
        "metadata": note.metadata or None,
        "categories": [note.category.lower()],
        "created_at": note.created_at.isoformat(),
        "updated_at": note.updated_at.isoformat(),
    }
    if score is not None:
        answer["score"] = score
    return answer


def write_result(note: Note, outcome: str) -> dict:
    return {"id": str(note.pk), "memory": note.content, "event": EVENT_FOR_OUTCOME[outcome]}


def history(note: Note, events: Iterable[NoteEvent]) -> list[dict]:
    """The events that changed the note's text, oldest first, as mem0's ADD / UPDATE / DELETE."""
    entries: list[dict] = []
    text: str | None = None
    for event in events:
        before, after = event.before or {}, event.after or {}
        new = after.get("content")
        if event.action in REMOVING:
            kind, old, new, text_after = "DELETE", text, None, text
        elif event.action in CREATING:
            kind, old, text_after = "ADD", None, new if new is not None else text
            new = text_after
        elif isinstance(new, str) and new != before.get("content", text):
            kind, old, text_after = "UPDATE", before.get("content", text), new
        else:
            continue
        entries.append(
            {
                "id": str(event.pk),
                "memory_id": str(note.pk),
                "event": kind,
                "old_memory": old,
                "new_memory": new,
                "actor_id": event.actor,
                "role": None,
                "is_deleted": kind == "DELETE",
                "created_at": event.created_at.isoformat(),
                "updated_at": event.created_at.isoformat(),
            }
        )
        text = text_after
    return entries
