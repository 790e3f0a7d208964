"""A search's candidate: the few fields ranking reads of a note, as one database row.

A search reads up to two pools of notes (80 at limit 10) and shows ``limit`` of them: building
a model instance with every field of each candidate cost about as much as the index queries, so
ranking reads rows (memories/access.py: visible_rows) and only the matches are read whole.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property
from typing import cast

from memories import access, raw_rows
from memories.models import Agent, Note

FIELDS = ("note_type", "topics", "retrieval_count", "importance", "embedding")
TIMES = ("created_at", "last_accessed")  # read as the database keeps them, decoded when ranking reads one


@dataclass(frozen=True)
class Candidate:
    key: str  # str(pk): ranking keys every dict by it
    note_type: str
    topics: list[str]
    retrieval_count: int
    importance: int | None
    embedding: bytes | None
    # Most candidates' times are never read (heat reads those retrieved before, a named date
    # the rest): decoding each was a tenth of a search's reads.
    created_raw: object
    accessed_raw: object

    @cached_property
    def created_at(self) -> dt.datetime:
        return cast(dt.datetime, raw_rows.decode_time(self.created_raw))

    @cached_property
    def last_accessed(self) -> dt.datetime | None:
        return raw_rows.decode_time(self.accessed_raw)


def visible_candidates(agent: Agent, ids: list[str], *, subject: str | None) -> list[Candidate]:
    """The notes ``ids`` that ``agent`` may read, in that order, as candidates."""
    rows = access.visible_rows(agent, ids, FIELDS, subject=subject, times=TIMES)
    return [Candidate(row["key"], *(row[f] for f in FIELDS), *(row[t] for t in TIMES)) for row in rows]


def read_whole(picked: list[Candidate]) -> dict[str, Note]:
    """The chosen candidates as whole notes by key, those still active (one read)."""
    if not picked:
        return {}
    among, params = raw_rows.among_ids("id", list(raw_rows.uuid_keys(n.key for n in picked).values()))
    return {str(note.pk): note for note in raw_rows.instances(Note, None, f"{among} AND is_active", params)}
