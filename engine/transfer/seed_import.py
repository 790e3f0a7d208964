"""Importing the seed plugins' stores (and mem0's), so their users keep their memories.

* ``openclaw-amem``: the points of its Qdrant collection (``amem_notes``), read from a Qdrant
  server, a local Qdrant folder, or a JSON dump (JSONL of points, a JSON array, or a saved scroll
  answer). Payload fields as the seed plugin writes them.
* ``memory-engine``: a workspace's ``memory/`` folder: ``archival.jsonl`` (records ``{id, ts,
  content, entity, tags, importance, access_count, last_accessed, source}``), ``core.json``
  (named blocks), ``graph.jsonl`` (triples ``{id, s, r, o, ts, source}``) and ``episodes.jsonl``
  (``{id, ts, summary, decisions, mood, topics, participants, duration_minutes}``). Core memory,
  facts and episodes go to the memory layers. A workspace migrated to SQLite (``memory/memory.sqlite``) is
  read from its tables; ``core.json``'s ``_meta`` is memory-engine's bookkeeping and is skipped.
* ``mem0``: the OSS ``Memory.get_all()`` JSON (``{"results": [...]}``), a platform export
  (``{"memories": [...]}``), a JSON array or JSONL of memories ``{id, memory, created_at,
  categories, metadata, user_id, …}``; each becomes a note of one amem agent.

Every record is checked first; a bad one is reported with its position (line, point number, id)
and skipped whole, never half-imported. Then everything good is written in ONE transaction:
notes (with their ids, access fields and timestamps), links, the evolution history as events,
conflict pairs. Nothing is embedded here: the notes are left dirty and the indexer embeds them
with this installation's model (the seeds used other ones) on its next sync. Notes already in
the database (same id) are skipped, so an import can be run again.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from django.db import transaction

from engine.annotations import facts
from engine.errors import AmemError
from engine.layers import core
from engine.text import content_hash, storable
from memories import ids
from memories.models import (
    CATEGORIES,
    EVERYONE,
    SHARED_AGENT,
    Agent,
    CoreBlock,
    CoreEvent,
    Episode,
    Fact,
    Link,
    Note,
    NoteEvent,
    Pair,
)

ACTOR = "import"
SEED_ACTIONS = {"update_neighbor", "strengthen", "consolidate", "crud_update"}
EVOLUTION_TYPES = {"EVOLVE", "CONFLICT", "EXPAND", "NEW"}
MEMORY_ENGINE_NS = uuid.UUID("6f0d6c1e-4b8e-5d3a-9a57-2f1f0d4c9e11")  # ids of memory-engine records
SCROLL_PAGE = 256
# What a record builder returns: a tuple whose first item is the note (see _good_records).
Built = TypeVar("Built", bound=tuple[Any, ...])


class BadRecord(ValueError):
    """One record that cannot be imported; the message says why."""


@dataclass
class Record:
    """One source record and where it was found ("dump.jsonl line 7", "point #12")."""

    where: str
    data: Any


@dataclass
class Plan:
    """What an import would write; ``bad`` lists the skipped records with their position."""

    notes: list[Note] = field(default_factory=list)
    links: list[tuple[uuid.UUID, uuid.UUID]] = field(default_factory=list)
    events: list[NoteEvent] = field(default_factory=list)
    conflicts: list[tuple[uuid.UUID, uuid.UUID, str]] = field(default_factory=list)
    agents: set[str] = field(default_factory=set)
    bad: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # kept records with a part dropped (a link to no note id)
    skipped_parts: dict[str, str] = field(default_factory=dict)  # part → why (e.g. core memory)
    records: int = 0
    source: str = ""  # where the records were read from, when the format has a choice
    # memory-engine's layers (written only on an amem with the memory layers)
    agent: str = ""
    core: list[tuple[str, Any]] = field(default_factory=list)
    facts: list[dict] = field(default_factory=list)
    episodes: list[tuple[Note, dict]] = field(default_factory=list)
    # A core block the agent already has under the same name: keep it, replace it, or import beside it.
    core_conflict: str = "keep"


@dataclass
class Outcome:
    notes: int = 0
    existing: int = 0
    links: int = 0
    dangling_links: int = 0
    events: int = 0
    conflicts: int = 0
    agents_created: list[str] = field(default_factory=list)
    note_ids: list[uuid.UUID] = field(default_factory=list)
    core_blocks: int = 0
    core_existing: int = 0
    core_kept: list[str] = field(default_factory=list)
    core_replaced: list[str] = field(default_factory=list)
    core_renamed: list[str] = field(default_factory=list)
    facts: int = 0
    facts_existing: int = 0
    episodes: int = 0
    episodes_existing: int = 0


# --- reading the sources -------------------------------------------------------------------


def dump_records(path: Path) -> Iterator[Record]:
    """Points from a JSON dump: JSONL (one point per line), a JSON array, or ``{"points"|"result": …}``."""

    def points(data: dict) -> Any:  # {"points": [...]} or a saved scroll answer {"result": {"points": [...]}}
        inner = data.get("result", data)
        return inner.get("points") if isinstance(inner, dict) else None

    return _json_list_records(path, "point", points, 'a list of points, {"points": [...]} or a scroll answer')


def _json_list_records(path: Path, item: str, unwrap: Callable[[dict], Any], expected: str) -> Iterator[Record]:
    """The items of a file holding one JSON list (``unwrap`` finds it in an object), or of a JSONL file."""
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("[") or (stripped.startswith("{") and _whole_json(stripped)):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise BadRecord(f"{path.name}: not JSON ({exc})") from None
        if isinstance(data, dict):
            data = unwrap(data)
        if not isinstance(data, list):
            raise BadRecord(f"{path.name}: expected {expected}")
        for number, value in enumerate(data, start=1):
            yield Record(f"{path.name} {item} #{number}", value)
        return
    yield from _jsonl(path)


def _whole_json(text: str) -> bool:
    """A file holding one JSON object (not JSONL whose first line happens to be an object)."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def qdrant_records(client, collection: str) -> Iterator[Record]:
    """Every point of a Qdrant collection (paged scroll, payloads only: the seed's vectors are not ours)."""
    offset = None
    number = 0
    while True:
        points, offset = client.scroll(
            collection_name=collection, limit=SCROLL_PAGE, offset=offset, with_payload=True, with_vectors=False
        )
        for point in points:
            number += 1
            yield Record(f"point #{number} (id {point.id})", {"id": point.id, "payload": point.payload})
        if offset is None:
            return


def qdrant_client(url: str | None = None, path: str | None = None, api_key: str | None = None):
    from qdrant_client import QdrantClient

    return QdrantClient(path=path) if path else QdrantClient(url=url, api_key=api_key or None)


# --- checking values --------------------------------------------------------------------------


def _text(value: Any, name: str, *, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise BadRecord(f"{name} must be a non-empty string" if required else f"{name} must be a string")
    if not storable(value):
        raise BadRecord(f"{name} holds control characters")
    return value


def _labels(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRecord(f"{name} must be a list of strings")
    if not all(storable(v) for v in value):
        raise BadRecord(f"{name} holds control characters")
    return [v for v in dict.fromkeys(v.strip() for v in value) if v]


def _moment(value: Any, name: str) -> dt.datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dt.datetime.fromtimestamp(value / 1000 if value > 1e11 else value, tz=dt.UTC)
    if not isinstance(value, str):
        raise BadRecord(f"{name} must be an ISO 8601 time")
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BadRecord(f"{name} is not an ISO 8601 time: {value[:40]!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _count(value: Any, name: str) -> int:
    if value in (None, ""):
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise BadRecord(f"{name} must be a number ≥ 0")
    return int(value)


def _uuid(value: Any, name: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise BadRecord(f"{name} is not a UUID: {str(value)[:40]!r}") from None


def check_agent_id(value: str, name: str) -> str:
    try:
        return ids.check_agent_id(value)
    except ids.InvalidId as exc:
        raise BadRecord(f"{name}: {exc}") from None


# --- openclaw-amem --------------------------------------------------------------------------------


def _good_records(plan: Plan, records: Iterable[Record], build: Callable[[Any], Built]) -> Iterator[Built]:
    """What ``build`` makes of each record whose first item is a note with an id not seen before.

    A record that cannot be built, or repeats an id, is listed in ``plan.bad`` with its
    position and skipped whole: an import never writes half a record.
    """
    seen: set[uuid.UUID] = set()
    for record in records:
        plan.records += 1
        try:
            if isinstance(record.data, BadRecord):
                raise record.data
            built = build(record.data)
            note_id = built[0].pk
            if note_id in seen:
                raise BadRecord(f"duplicate id {note_id}")
        except BadRecord as exc:
            plan.bad.append(f"{record.where}: {exc}")
            continue
        seen.add(note_id)
        yield built


def plan_openclaw_amem(records: Iterable[Record], *, agent_map: dict[str, str] | None = None) -> Plan:
    """Check every point and build the notes, links, events and conflicts to write."""
    agent_map = agent_map or {}
    plan = Plan()
    links: list[tuple[uuid.UUID, list[str]]] = []
    conflicts: list[tuple[uuid.UUID, list[str], str]] = []
    for note, events, out, (against, reason) in _good_records(plan, records, lambda data: _amem_note(data, agent_map)):
        plan.notes.append(note)
        plan.events.extend(events)
        links.append((note.pk, out))
        if against:
            conflicts.append((note.pk, against, reason))
        plan.agents.update(a for a in (note.owner, note.agent_id) if a != SHARED_AGENT)
    for source, targets in links:
        for target in targets:
            try:
                plan.links.append((source, uuid.UUID(target)))
            except ValueError:
                plan.warnings.append(f"note {source}: link to {target[:40]!r} is not a note id (dropped)")
    pairs: dict[frozenset, tuple[uuid.UUID, uuid.UUID, str]] = {}
    for a, others, reason in conflicts:
        for other in others:
            try:
                b = uuid.UUID(other)
            except ValueError:
                continue
            if a != b:
                pairs.setdefault(frozenset((a, b)), (a, b, reason))
    plan.conflicts = list(pairs.values())
    return plan


def _amem_note(data: Any, agent_map: dict[str, str]) -> tuple[Note, list[NoteEvent], list[str], tuple[list[str], str]]:
    if not isinstance(data, dict):
        raise BadRecord("not a JSON object")
    payload = data.get("payload", data)
    if not isinstance(payload, dict):
        raise BadRecord("payload is not an object")
    note_id = _uuid(payload.get("id", data.get("id")), "id")
    content = _text(payload.get("content"), "content", required=True)
    raw_agent = _text(payload.get("agent_id") or "main", "agent_id")
    agent_id = (
        SHARED_AGENT if raw_agent == SHARED_AGENT else check_agent_id(agent_map.get(raw_agent, raw_agent), "agent_id")
    )
    # The seed's defaults when reading a payload.
    raw_owner = _text(payload.get("owner") or (raw_agent if raw_agent != SHARED_AGENT else "main"), "owner")
    owner = check_agent_id(agent_map.get(raw_owner, raw_owner), "owner")

    def who(names: list[str]) -> list[str]:
        return [n if n in (EVERYONE, SHARED_AGENT) else agent_map.get(n, n) for n in names]

    default_list = [EVERYONE] if agent_id == SHARED_AGENT else [agent_id]
    readers = who(_labels(payload.get("readers"), "readers")) or default_list
    writers = who(_labels(payload.get("writers"), "writers")) or [owner]
    category = str(payload["category"]) if payload.get("category") in CATEGORIES else "General"
    note_type = Note.KNOWLEDGE if payload.get("note_type") == Note.KNOWLEDGE else Note.MEMORY
    # Older openclaw-amem payloads (and hand-made dumps) say created_at: a note must keep its own date.
    stamp = "timestamp" if payload.get("timestamp") not in (None, "") else "created_at"
    created = _moment(payload.get(stamp), stamp) or dt.datetime.now(dt.UTC)
    evolution_type = str(payload["evolution_type"]) if payload.get("evolution_type") in EVOLUTION_TYPES else ""
    note = Note(
        id=note_id,
        agent_id=agent_id,
        content=content,
        content_hash=content_hash(content),
        keywords=_labels(payload.get("keywords"), "keywords"),
        tags=_labels(payload.get("tags"), "tags"),
        context=_text(payload.get("context"), "context"),
        category=category,
        note_type=note_type,
        topics=_labels(payload.get("topics"), "topics") if note_type == Note.KNOWLEDGE else [],
        owner=owner,
        readers=readers,
        writers=writers,
        subjects=_labels(payload.get("subjects"), "subjects"),
        sources=[f"openclaw-amem:{note_id}"],
        created_at=created,
        last_accessed=_moment(payload.get("last_accessed"), "last_accessed"),
        retrieval_count=_count(payload.get("retrieval_count"), "retrieval_count"),
        is_active=payload.get("is_active") is not False,
        ephemeral=payload.get("ephemeral") is True,
        low_quality=payload.get("low_quality") is True,
        evolution_type=evolution_type,
        conflict_scanned_at=_moment(payload.get("conflict_scanned_at"), "conflict_scanned_at"),
        index_dirty=True,
        revision=1,
    )
    events = [*_history(note, payload.get("evolution_history")), _import_event(note, "openclaw-amem", payload)]
    links = _labels(payload.get("links"), "links")
    # The seed's conflict: the notes it names, and why (its pending_merge flag names no note to
    # compare with, and the seed's own job would only clear it: it is not carried over).
    against = _labels(payload.get("conflicts_with"), "conflicts_with")
    return note, events, links, (against, _text(payload.get("conflict_reason"), "conflict_reason"))


def _history(note: Note, raw: Any) -> list[NoteEvent]:
    """The seed's evolution_history (a JSON string in the payload, or a list) as NoteEvents."""
    if raw in (None, "", []):
        return []
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise BadRecord("evolution_history is not JSON") from None
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise BadRecord("evolution_history must be a list of objects")
    events = []
    for number, entry in enumerate(raw, start=1):
        action = entry.get("action") if entry.get("action") in SEED_ACTIONS else "update_neighbor"
        before = {"context": entry.get("oldContext"), "tags": entry.get("oldTags")}
        if entry.get("oldContent") is not None:
            before["content"] = entry.get("oldContent")
        after = {"context": entry.get("newContext"), "tags": entry.get("newTags"), "seed_action": entry.get("action")}
        for key in ("suggestedConnections", "tagsUpdated"):
            if key in entry:
                after[key] = entry[key]
        at = _moment(entry.get("triggeredAt"), f"evolution_history[{number}].triggeredAt")
        trigger = str(entry.get("triggeredBy") or "")[:60]
        events.append(
            NoteEvent(
                note=note,
                action=action,
                before={k: v for k, v in before.items() if v is not None},
                after={k: v for k, v in after.items() if v is not None},
                actor=f"seed:{trigger}" if trigger else "seed",
                created_at=at or note.created_at,
            )
        )
    return events


def _import_event(note: Note, fmt: str, original: dict) -> NoteEvent:
    kept = {k: v for k, v in original.items() if k not in ("content", "embedding", "evolution_history")}
    return NoteEvent(
        note=note,
        action="import",
        before={},
        after={"format": fmt, "original": json.loads(json.dumps(kept, default=str))},
        actor=ACTOR,
        created_at=note.created_at,
    )


# --- memory-engine ----------------------------------------------------------------------------------


def memory_dir(path: Path) -> Path:
    """The workspace's memory/ folder (given the workspace or the folder itself)."""
    return path / "memory" if (path / "memory").is_dir() else path


SQLITE_STORE = "memory.sqlite"


def plan_memory_engine(path: Path, agent: str) -> Plan:
    """Archival records become notes of ``agent``; core blocks, graph triples and episodes their layers.

    A workspace migrated to SQLite (memory-engine's ``memory_migrate``: ``memory/memory.sqlite``,
    tables archival, graph, episodes) is read from there, its live store; ``core.json`` stays a file.
    """
    folder = memory_dir(path)
    database = folder / SQLITE_STORE
    sources: dict[str, list[Record] | None]
    if database.is_file():
        sources, plan_source = sqlite_tables(database), f"{SQLITE_STORE} (SQLite)"
    elif (folder / "archival.jsonl").is_file():
        sources = {
            part: list(_jsonl(folder / f"{part}.jsonl")) if (folder / f"{part}.jsonl").is_file() else None
            for part in ("archival", "graph", "episodes")
        }
        plan_source = ""  # the usual case: not worth a word
    else:
        raise BadRecord(f"no archival.jsonl or {SQLITE_STORE} in {folder} (give the workspace or its memory/ folder)")
    plan = Plan(agents={agent}, agent=agent, source=plan_source)
    for note, event in _good_records(plan, sources["archival"] or [], lambda data: _archival_note(data, agent)):
        plan.notes.append(note)
        plan.events.append(event)
    core_file = folder / "core.json"
    if core_file.is_file():
        _plan_core(plan, core_file)
    for part in ("graph", "episodes"):
        records = sources[part]
        if records is None:
            continue
        if part == "graph":
            _plan_facts(plan, records, {note.pk for note in plan.notes})
        else:
            _plan_episodes(plan, records, agent)
    return plan


JSON_COLUMNS = {"tags", "decisions", "topics", "participants"}


def sqlite_tables(database: Path) -> dict[str, list[Record] | None]:
    """memory-engine's SQLite store as records shaped like its JSONL lines (graph rows as {s, r, o}).

    Opened read-only: the workspace is never changed. A table that does not exist is None.
    """
    import sqlite3

    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BadRecord(f"{database.name}: cannot open ({exc})") from None
    connection.row_factory = sqlite3.Row
    try:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "archival" not in names:
            raise BadRecord(f"{database.name}: no archival table (is this a memory-engine store?)")
        out: dict[str, list[Record] | None] = {}
        for table in ("archival", "graph", "episodes"):
            if table not in names:
                out[table] = None
                continue
            records = []
            for number, row in enumerate(connection.execute(f"SELECT * FROM {table} ORDER BY rowid"), start=1):
                records.append(Record(f"{database.name} {table} row {number}", _sqlite_row(table, dict(row))))
            out[table] = records
        return out
    except sqlite3.Error as exc:
        raise BadRecord(f"{database.name}: {exc}") from None
    finally:
        connection.close()


def _sqlite_row(table: str, row: dict) -> dict | BadRecord:
    for column in JSON_COLUMNS & row.keys():
        value = row[column]
        if isinstance(value, str):
            try:
                row[column] = json.loads(value) if value.strip() else []
            except ValueError:
                return BadRecord(f"{column} is not JSON")
    if table == "graph":  # the JSONL shape: {id, s, r, o, ts, source}
        row = {
            "id": row.get("id"),
            "s": row.get("subject"),
            "r": row.get("relation"),
            "o": row.get("object"),
            "ts": row.get("ts"),
            "source": row.get("source"),
        }
    return row


def _block_name(key: str) -> str:
    """memory-engine's top-level core.json key as a core block name ("Current Focus" → current_focus)."""
    name = re.sub(r"[^a-z0-9_-]+", "_", key.strip().lower()).strip("_")[:64]
    return name if name[:1].isalpha() else f"block_{name}"[:64]


def _plan_core(plan: Plan, path: Path) -> None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        plan.bad.append(f"{path.name}: not JSON ({exc})")
        return
    if not isinstance(data, dict):
        plan.bad.append(f"{path.name}: expected an object of named blocks")
        return
    for key, value in data.items():
        if key.startswith("_"):
            # memory-engine's own bookkeeping (_meta: version, updated_at), not something the agent knows.
            plan.skipped_parts[f"core.json {key}"] = "skipped: memory-engine's metadata, not a memory"
            continue
        try:
            name = core.check_name(_block_name(key))
            if core.size_of(value) > core.limit_bytes():
                raise AmemError(f"{core.size_of(value)} bytes, over the {core.limit_bytes()}-byte limit")
        except AmemError as exc:
            plan.bad.append(f"{path.name} block {key!r}: {exc}")
            continue
        plan.core.append((name, value))


def _plan_facts(plan: Plan, records: Iterable[Record], archival_ids: set[uuid.UUID]) -> None:
    for record in records:
        try:
            if isinstance(record.data, BadRecord):
                raise record.data
            data = record.data
            if not isinstance(data, dict):
                raise BadRecord("not a JSON object")
            triple = facts.check_triple(data.get("s"), data.get("r"), data.get("o"))
            source = data.get("source")
            note_id = archival_note_id(source) if isinstance(source, str) and source else None
            plan.facts.append(
                {
                    "subject": triple.subject,
                    "relation": triple.relation,
                    "object": triple.object,
                    "valid_from": _moment(data.get("ts"), "ts"),
                    "sources": [str(note_id)] if note_id in archival_ids else [],
                }
            )
        except (BadRecord, AmemError) as exc:
            plan.bad.append(f"{record.where}: {exc}")


def episode_note_id(record_id: str) -> uuid.UUID:
    return uuid.uuid5(MEMORY_ENGINE_NS, f"episode:{record_id}")


def _plan_episodes(plan: Plan, records: Iterable[Record], agent: str) -> None:
    for record in records:
        try:
            if isinstance(record.data, BadRecord):
                raise record.data
            data = record.data
            if not isinstance(data, dict):
                raise BadRecord("not a JSON object")
            record_id = _text(data.get("id"), "id", required=True)
            summary = _text(data.get("summary"), "summary", required=True)
            decisions = _labels(data.get("decisions"), "decisions")
            topics = _labels(data.get("topics"), "topics")
            mood = _text(data.get("mood"), "mood").strip()
            ended = _moment(data.get("ts"), "ts") or dt.datetime.now(dt.UTC)
            minutes = data.get("duration_minutes")
            if minutes is not None and (
                isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or minutes < 0
            ):
                raise BadRecord("duration_minutes must be a number ≥ 0")
            lines = [summary.strip()]
            lines += [f"Decisions: {'; '.join(decisions)}"] if decisions else []
            lines += [f"Topics: {', '.join(topics)}"] if topics else []
            lines += [f"Mood: {mood}"] if mood else []
            text = "\n".join(lines)
            session = f"memory-engine:{record_id}"[:200]
            layer_fields: dict[str, Any] = {"layer": "episode", "session": session}  # the memory layers' fields
            note = Note(
                **layer_fields,
                id=episode_note_id(record_id),
                agent_id=agent,
                content=text,
                content_hash=content_hash(text),
                tags=topics[:20],
                context=f"episode summary of session {session}",
                owner=agent,
                readers=[agent],
                writers=[agent],
                sources=[f"memory-engine:{record_id}"],
                created_at=ended,
                index_dirty=True,
                revision=1,
            )
            started = ended - dt.timedelta(minutes=float(minutes or 0))
            plan.episodes.append((note, {"session": session, "started_at": started, "ended_at": ended, "raw": data}))
        except BadRecord as exc:
            plan.bad.append(f"{record.where}: {exc}")


def _jsonl(path: Path) -> Iterator[Record]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield Record(f"{path.name} line {number}", json.loads(line))
        except json.JSONDecodeError as exc:
            yield Record(f"{path.name} line {number}", BadRecord(f"not JSON ({exc.msg})"))


def archival_note_id(record_id: str) -> uuid.UUID:
    """A stable id for a memory-engine record, so importing the same workspace twice adds nothing."""
    return uuid.uuid5(MEMORY_ENGINE_NS, record_id)


def _archival_note(data: Any, agent: str) -> tuple[Note, NoteEvent]:
    if not isinstance(data, dict):
        raise BadRecord("not a JSON object")
    record_id = _text(data.get("id"), "id", required=True)
    content = _text(data.get("content"), "content", required=True)
    entity = _text(data.get("entity"), "entity").strip()
    tags = _labels(data.get("tags"), "tags")
    if entity and entity.lower() != "general" and entity not in tags:
        tags = [entity, *tags]
    importance = data.get("importance")
    if importance is not None and (isinstance(importance, bool) or not isinstance(importance, (int, float))):
        raise BadRecord("importance must be a number")
    created = _moment(data.get("ts"), "ts") or dt.datetime.now(dt.UTC)
    extra: dict[str, Any] = {}
    if isinstance(importance, (int, float)) and _has_field(Note, "importance"):
        extra["importance"] = min(10, max(1, round(importance)))  # the memory layers' 1–10 rating
    note = Note(
        **extra,
        id=archival_note_id(record_id),
        agent_id=agent,
        content=content,
        content_hash=content_hash(content),
        tags=tags,
        owner=agent,
        readers=[agent],
        writers=[agent],
        sources=[f"memory-engine:{record_id}"],
        created_at=created,
        last_accessed=_moment(data.get("last_accessed"), "last_accessed"),
        retrieval_count=_count(data.get("access_count"), "access_count"),
        index_dirty=True,
        revision=1,
    )
    return note, _import_event(note, "memory-engine", data)


def _has_field(model, name: str) -> bool:
    return any(f.name == name for f in model._meta.concrete_fields)


# --- mem0 ------------------------------------------------------------------------------------------

MEM0_NS = uuid.UUID("0b6a54f2-3c1d-5e8f-9a47-6d2e1c0f8b31")  # ids of mem0 memories that are not UUIDs


def mem0_records(path: Path) -> Iterator[Record]:
    """mem0 memories from a file: the OSS ``Memory.get_all()`` answer (``{"results": [...]}``), a
    platform export (``{"memories": [...]}``), a JSON array, or JSONL (one memory a line)."""

    def memories(data: dict) -> Any:
        return next((data[k] for k in ("results", "memories") if isinstance(data.get(k), list)), None)

    return _json_list_records(path, "memory", memories, 'a list of memories, {"results": [...]} or {"memories": [...]}')


def plan_mem0(records: Iterable[Record], agent: str) -> Plan:
    """Each mem0 memory becomes a note of ``agent``, keeping its id, date and categories."""
    plan = Plan(agents={agent}, agent=agent)
    for note, event in _good_records(plan, records, lambda data: _mem0_note(data, agent)):
        plan.notes.append(note)
        plan.events.append(event)
    return plan


def _mem0_note(data: Any, agent: str) -> tuple[Note, NoteEvent]:
    if not isinstance(data, dict):
        raise BadRecord("not a JSON object")
    raw_id = data.get("id")
    if raw_id in (None, ""):
        raise BadRecord("no id")
    try:
        note_id = uuid.UUID(str(raw_id))
    except ValueError:
        note_id = uuid.uuid5(MEM0_NS, str(raw_id))
    content = _text(data.get("memory", data.get("text")), "memory", required=True)
    categories = data.get("categories")
    metadata = data.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise BadRecord("metadata must be an object")
    if categories is None and isinstance(metadata, dict):
        categories = metadata.get("categories")
    note = Note(
        id=note_id,
        agent_id=agent,
        content=content,
        content_hash=content_hash(content),
        tags=_labels(categories, "categories")[:20],
        owner=agent,
        readers=[agent],
        writers=[agent],
        sources=[f"mem0:{raw_id}"[:200]],
        created_at=_moment(data.get("created_at"), "created_at") or dt.datetime.now(dt.UTC),
        index_dirty=True,
        revision=1,
    )
    return note, _import_event(note, "mem0", data)


# --- writing ---------------------------------------------------------------------------------------


def apply(plan: Plan) -> Outcome:
    """Write a checked plan in one transaction; notes already present (same id) are left as they are."""
    out = Outcome()
    with transaction.atomic():
        known = set(Agent.objects.filter(pk__in=plan.agents).values_list("pk", flat=True))
        fresh_agents = sorted(plan.agents - known)
        Agent.objects.bulk_create([Agent(id=a, name=f"{a} (imported)") for a in fresh_agents])
        out.agents_created = fresh_agents
        existing = set(Note.objects.filter(pk__in=[n.pk for n in plan.notes]).values_list("pk", flat=True))
        fresh = [n for n in plan.notes if n.pk not in existing]
        Note.objects.bulk_create(fresh, batch_size=500)
        # auto_now set updated_at to now on insert; a note imported as is was last changed when it was made.
        for note in fresh:
            note.updated_at = note.created_at
        Note.objects.bulk_update(fresh, ["updated_at"], batch_size=500)
        out.notes, out.existing = len(fresh), len(existing)
        out.note_ids = [n.pk for n in fresh]
        new_ids = set(out.note_ids)
        ends = {t for _, t in plan.links}
        present = set(Note.objects.filter(pk__in=ends | {s for s, _ in plan.links}).values_list("pk", flat=True))
        # A link into a note imported now counts too: re-importing a fixed record restores the links
        # that notes imported earlier make to it.
        wanted = {(s, t) for s, t in plan.links if (s in new_ids or t in new_ids) and s != t}
        kept = [
            Link(source_id=s, target_id=t, created_by=ACTOR, reason="imported")
            for s, t in wanted
            if s in present and t in present
        ]
        Link.objects.bulk_create(kept, ignore_conflicts=True, batch_size=500)
        out.links, out.dangling_links = len(kept), len(wanted) - len(kept)
        events = [e for e in plan.events if e.note.pk in new_ids]
        for event in events:
            event.note_id = event.note.pk
        NoteEvent.objects.bulk_create(events, batch_size=500)
        out.events = len(events)
        sides = {x for a, b, _ in plan.conflicts for x in (a, b)}
        there = set(Note.objects.filter(pk__in=sides).values_list("pk", flat=True))
        pairs = [
            Pair(kind=Pair.CONFLICT, newer_id=a, older_id=b, reason=reason, guess="change", opened_by="import")
            for a, b, reason in plan.conflicts
            if (a in new_ids or b in new_ids) and a in there and b in there
        ]
        Pair.objects.bulk_create(pairs, ignore_conflicts=True)
        out.conflicts = len(pairs)
        if plan.core or plan.facts or plan.episodes:
            _apply_layers(plan, out)
    return out


CORE_CONFLICTS = ("keep", "replace", "rename")


def _apply_layers(plan: Plan, out: Outcome) -> None:
    agent = Agent.objects.get(pk=plan.agent)
    for name, value in plan.core:
        existing = CoreBlock.objects.filter(agent=agent, subject="", name=name).first()
        if existing is not None and plan.core_conflict == "keep":
            out.core_existing += 1  # what the agent has already stays; the import's block is reported, not written
            out.core_kept.append(name)
            continue
        if existing is not None and plan.core_conflict == "replace":
            before = existing.value
            existing.value, existing.updated_at = value, timezone_now()
            existing.save()
            CoreEvent.objects.create(block=existing, action="import", path="", before=before, after=value, actor=ACTOR)
            out.core_replaced.append(name)
            continue
        stored_as = name
        if existing is not None:  # rename: the imported block beside the agent's own
            stored_as = _free_block_name(agent, name)
            out.core_renamed.append(stored_as)
        block = CoreBlock.objects.create(agent=agent, subject="", name=stored_as, value=value)
        CoreEvent.objects.create(block=block, action="import", path="", before={}, after=value, actor=ACTOR)
        out.core_blocks += 1
    current = Fact.objects.filter(agent_id=agent.pk, invalid_at__isnull=True)
    have = set(current.values_list("subject_key", "relation", "object_key"))
    for fact in plan.facts:
        key = (fact["subject"].casefold(), fact["relation"], fact["object"].casefold())
        if key in have:
            out.facts_existing += 1
            continue
        have.add(key)
        row = Fact(agent_id=agent.pk, origin="import", **fact)
        row.valid_from = row.valid_from or timezone_now()
        row.save()  # save() fills the lower-cased keys
        out.facts += 1
    present = set(Note.objects.filter(pk__in=[n.pk for n, _ in plan.episodes]).values_list("pk", flat=True))
    fresh = [(n, e) for n, e in plan.episodes if n.pk not in present]
    out.episodes_existing = len(plan.episodes) - len(fresh)
    Note.objects.bulk_create([n for n, _ in fresh], batch_size=500)
    for note, episode in fresh:
        Episode.objects.create(
            agent_id=agent.pk,
            session=episode["session"],
            note=note,
            turn_ids=[],
            started_at=episode["started_at"],
            ended_at=episode["ended_at"],
            closed_by="import",
        )
        NoteEvent.objects.create(
            note=note, action="import", after={"format": "memory-engine", "original": episode["raw"]}, actor=ACTOR
        )
    out.episodes = len(fresh)
    out.note_ids += [n.pk for n, _ in fresh]


def _free_block_name(agent: Agent, name: str) -> str:
    """``<name>_imported``, or ``<name>_imported_2``, … : the first name the agent has no block under."""
    for n in range(1, 100):
        candidate = core.check_name(f"{name[:50]}_imported" + (f"_{n}" if n > 1 else ""))
        if not CoreBlock.objects.filter(agent=agent, subject="", name=candidate).exists():
            return candidate
    raise AmemError(f"no free name for the imported core block {name!r}")


def timezone_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
