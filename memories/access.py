"""Who may read and write which notes: the only place that decides (docs/architecture.md §1, §3).

Rules: the owner always may; otherwise the caller must be listed in
``readers`` / ``writers`` or the list must hold ``*``. A retired note is
invisible to everyone. Subjects: a search scoped to a subject sees that
subject's notes and world facts (``subjects == []``), never another person's.

Mode A: agents without their own collection share one index, filtered here by
the reader rules (so an admin can grant one agent another's note).
Mode B: an agent with ``collection`` set has its own index; nothing crosses it,
in either direction, whatever the reader lists say.

The same rules exist in four shapes, kept side by side so they cannot drift:
Python predicates (one note), a Django ``Q`` (database reads), its SQL (the search
path's own reads, memories/raw_rows.py) and neutral index conditions (every Qdrant
query, both dense and sparse legs).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import connection
from django.db.models import Q

from engine.errors import InvalidInput, NotFound, PermissionDenied
from engine.index.store import ACTIVE, AnyOf, Empty, Eq, In, IndexFilter
from memories import raw_rows
from memories.models import EVERYONE, SHARED_AGENT, Agent, Note


def _may(agent_id: str, owner: str, listed: list[str]) -> bool:
    return agent_id == owner or agent_id in listed or EVERYONE in listed


def can_read(agent_id: str, note: Note) -> bool:
    return _readable(agent_id, note.is_active, note.owner, note.readers)


def _readable(agent_id: str, is_active: bool, owner: str, readers: list[str] | None) -> bool:
    return is_active and _may(agent_id, owner, readers or [])


def can_write(agent_id: str, note: Note) -> bool:
    return note.is_active and _may(agent_id, note.owner, note.writers or [])


def collection_for(agent: Agent) -> str:
    """The index collection holding this agent's notes."""
    return agent.collection or settings.AMEM_QDRANT_COLLECTION


def collection_for_note(note: Note, agents: dict[str, Agent] | None = None) -> str:
    if note.agent_id == SHARED_AGENT:
        return settings.AMEM_QDRANT_COLLECTION
    agent = (agents or {}).get(note.agent_id) or Agent.objects.filter(pk=note.agent_id).first()
    return collection_for(agent) if agent else settings.AMEM_QDRANT_COLLECTION


def subject_allows(note: Note, subject: str | None) -> bool:
    return _subject_ok(note.subjects, subject)


def _subject_ok(subjects: list[str] | None, subject: str | None) -> bool:
    return not subject or not subjects or subject in subjects


def readable_q(agent: Agent, *, retired: bool = False) -> Q:
    """Database pre-filter: active notes (and retired ones with ``retired``) in ``agent``'s index partition.

    The reader lists are checked per note by ``can_read`` (JSON containment is
    not portable across SQLite and PostgreSQL).
    """
    state = Q(erased_at__isnull=True) if retired else Q(is_active=True)  # an erased note has no history to read
    if agent.collection:
        return state & Q(agent_id=agent.id)
    mode_b_agents = Agent.objects.exclude(collection="").values("pk")
    return state & ~Q(agent_id__in=mode_b_agents)


SCOPES = ("private", "shared")


def fields_for_new_note(agent: Agent, scope: str) -> dict:
    """agent_id/owner/readers/writers for a new note of ``agent`` in ``scope`` (docs/architecture.md §3)."""
    if scope not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}")
    if scope == "shared":
        if agent.collection:
            raise InvalidInput(
                f"agent {agent.pk!r} has its own collection (Mode B); shared notes live in the common index"
            )
        return {"agent_id": SHARED_AGENT, "owner": agent.pk, "readers": [EVERYONE], "writers": [agent.pk]}
    return {"agent_id": agent.pk, "owner": agent.pk, "readers": [agent.pk], "writers": [agent.pk]}


def index_filter(agent: Agent, *, subject: str | None = None, note_type: str | None = None) -> IndexFilter:
    """Conditions for every index query on behalf of ``agent``."""
    # Mode A: the shared collection holds every Mode A agent's notes and the shared ones;
    # the reader clause decides (own notes, shared "*" notes, notes an admin granted).
    # Mode B: the agent's own collection, and only its own notes in it.
    must: list = [Eq("status", ACTIVE), AnyOf((Eq("owner", agent.id), In("readers", (agent.id, EVERYONE))))]
    if agent.collection:
        must.append(Eq("agent_id", agent.id))
    if subject:
        must.append(AnyOf((Eq("subjects", subject), Empty("subjects"))))
    if note_type:
        must.append(Eq("note_type", note_type))
    return IndexFilter(tuple(must))


def readable_sql(agent: Agent) -> tuple[str, list]:
    """``readable_q(agent)`` as SQL and its parameters, for the search path's own reads
    (memories/raw_rows.py): the same pre-filter, one more shape of the same rule."""
    # ``is_active`` bare, not ``= %s``: compared with a parameter, SQLite's planner walked the
    # is_active index (every active note) instead of looking the ids up: 10 ms instead of 1 at 10k.
    if agent.collection:
        return "is_active AND agent_id = %s", [agent.id]
    agents = connection.ops.quote_name(Agent._meta.db_table)
    return f"is_active AND agent_id NOT IN (SELECT id FROM {agents} WHERE collection <> %s)", [""]


def _by_id(ids) -> tuple[list[str], str, list]:
    """``ids`` as canonical strings (the caller's order), and a ``WHERE`` on them with its parameters."""
    keys = raw_rows.uuid_keys(ids)
    among, params = raw_rows.among_ids("id", list(keys.values()))
    return list(keys), among, params


def visible_notes(agent: Agent, ids, *, subject: str | None = None, only: tuple[str, ...] = ()) -> list[Note]:
    """Notes by id that ``agent`` may read, in the order of ``ids``; unreadable ones vanish.
    ``only``: the fields the caller reads (the ones access needs are added), the rest left unread."""
    keys, where, params = _by_id(ids)
    if not keys:
        return []
    readable, more = readable_sql(agent)
    fields = (*only, "agent_id", "owner", "readers", "is_active", "subjects") if only else None
    found = raw_rows.instances(Note, fields, f"{where} AND {readable}", [*params, *more])
    notes = {str(n.pk): n for n in found if can_read(agent.id, n) and subject_allows(n, subject)}
    return [notes[i] for i in keys if i in notes]


def visible_rows(
    agent: Agent, ids, fields: tuple[str, ...], *, subject: str | None = None, times: tuple[str, ...] = ()
) -> list[dict]:
    """``visible_notes`` as rows of ``fields`` and ``key`` (``str(pk)``): the same rules, no model
    instances, for a caller that reads many notes and few fields of each (a search's candidates).
    ``times``: datetime fields left undecoded (raw_rows.undecoded_time), for a caller that reads
    the times of few rows (raw_rows.decode_time)."""
    keys, where, params = _by_id(ids)
    if not keys:
        return []
    readable, more = readable_sql(agent)
    names = ("is_active", "owner", "readers", "subjects", *fields)
    undecoded = (raw_rows.uuid_text(Note, "id"), *(raw_rows.undecoded_time(Note, name) for name in times))
    rows = {}
    for values in raw_rows.select(Note, names, f"{where} AND {readable}", [*params, *more], also=undecoded):
        row = dict(zip((*names, "key", *times), values, strict=True))
        if _readable(agent.id, row["is_active"], row["owner"], row["readers"]) and _subject_ok(
            row["subjects"], subject
        ):
            row["key"] = raw_rows.canonical_uuid(row["key"])
            rows[row["key"]] = row
    return [rows[i] for i in keys if i in rows]


def count_readable(agent: Agent) -> int:
    """How many active notes ``agent`` may read, from the database (the truth, never behind)."""
    rows = Note.objects.filter(readable_q(agent)).values_list("owner", "readers")
    return sum(1 for owner, readers in rows.iterator() if _may(agent.id, owner, readers or []))


def _parse_id(note_id) -> uuid.UUID:
    try:
        return note_id if isinstance(note_id, uuid.UUID) else uuid.UUID(str(note_id))
    except ValueError:
        raise NotFound("no such note") from None


def get_note_for(agent: Agent, note_id, *, retired: bool = False) -> Note:
    """The note if ``agent`` may read it; otherwise NotFound (no existence leak).

    ``retired``: a retired note too (its history stays readable: the DELETE is in it).
    """
    note = Note.objects.filter(readable_q(agent, retired=retired), pk=_parse_id(note_id)).first()
    if note is None or not _readable(agent.id, note.is_active or retired, note.owner, note.readers):
        raise NotFound("no such note")
    return note


def get_note_for_write(agent: Agent, note_id) -> Note:
    """The note if ``agent`` may change it: NotFound if unreadable, PermissionDenied if read-only."""
    note = get_note_for(agent, note_id)
    if not can_write(agent.id, note):
        raise PermissionDenied("this note is read-only for you")
    return note
