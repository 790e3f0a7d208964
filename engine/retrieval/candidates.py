"""A search's candidate: the few fields ranking reads of a note, as one database row.

A search reads up to two pools of notes (80 at limit 10) and shows ``limit`` of them: building
a model instance with every field of each candidate cost about as much as the index queries, so
ranking reads rows (memories/access.py: visible_rows) and only the matches are read whole.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from memories import access, raw_rows
from memories.models import Agent, Note

FIELDS = (
    "note_type",
    "topics",
    "created_at",
    "retrieval_count",
    "last_accessed",
    "importance",
    "embedding",
)


@dataclass(frozen=True)
class Candidate:
    key: str  # str(pk), made once: ranking keys every dict by it
    pk: uuid.UUID
    note_type: str
    topics: list[str]
    created_at: dt.datetime
    retrieval_count: int
    last_accessed: dt.datetime | None
    importance: int | None
    embedding: bytes | None


def visible_candidates(agent: Agent, ids: list[str], *, subject: str | None) -> list[Candidate]:
    """The notes ``ids`` that ``agent`` may read, in that order, as candidates."""
    rows = access.visible_rows(agent, ids, FIELDS, subject=subject)
    return [Candidate(row["key"], row["pk"], *(row[f] for f in FIELDS)) for row in rows]


def read_whole(picked: list[Candidate]) -> list[Note]:
    """The chosen candidates as whole notes, those still active (one read; the order is the database's)."""
    if not picked:
        return []
    among, params = raw_rows.among_ids("id", list(raw_rows.uuid_keys(n.pk for n in picked).values()))
    return raw_rows.instances(Note, None, f"{among} AND is_active", params)
