"""Lossless export and restore of an agent's memory: notes, links, history, access fields, memory layers.

One JSON object per line. The first line is the header ``{"type": "amem-export",
"version": 1, "agent": {...}}``; then ``note``, ``link``, ``event`` and ``pair`` (a conflict or a
merge waiting for a person, or decided) lines, then the
memory layers: ``core_block`` (with its ``events`` inside, ``undone_by`` as an index
into them), ``fact`` (its database id kept only to rebuild ``superseded_by``) and
``episode`` lines.
Every concrete field is written; only the index state (``index_dirty``,
``indexed_at``) is not, because the index is derived: restored notes are
dirty and the indexer rebuilds their points. Restoring is not writing new
memories, so no dedup or model call happens: export → restore into an empty
database gives back the same rows.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.db import models, transaction
from django.db.models import Q

from memories.ids import InvalidId, check_agent_id
from memories.models import SHARED_AGENT, Agent, CoreBlock, CoreEvent, Episode, Fact, Link, Note, NoteEvent, Pair

FORMAT = "amem-export"
VERSION = 1
INDEX_STATE = ("index_dirty", "indexed_at")
SURROGATE = ("id",)  # integer keys of links and events belong to the database, not the data

M = TypeVar("M", bound=models.Model)


def _encode(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


def _decode(model_field: models.Field, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(model_field, models.DateTimeField):
        return dt.datetime.fromisoformat(value)
    if isinstance(model_field, models.BinaryField):
        return base64.b64decode(value)
    if isinstance(model_field, (models.UUIDField, models.ForeignKey)):
        target = model_field.target_field if isinstance(model_field, models.ForeignKey) else model_field
        return uuid.UUID(value) if isinstance(target, models.UUIDField) else value
    return value


def _fields(model: type[models.Model], skip: Iterable[str] = ()) -> list[models.Field]:
    return [f for f in model._meta.concrete_fields if f.name not in skip]


def row(obj: models.Model, skip: Iterable[str] = ()) -> dict[str, Any]:
    return {f.attname: _encode(getattr(obj, f.attname)) for f in _fields(type(obj), skip)}


def build(model: type[M], data: dict[str, Any], skip: Iterable[str] = ()) -> M:
    values = {}
    for f in _fields(model, skip):
        if f.attname in data:
            values[f.attname] = _decode(f, data[f.attname])
    return model(**values)


# --- export ---------------------------------------------------------------------------


def notes_of(agent: Agent) -> models.QuerySet[Note]:
    """The agent's notes, retired ones included, and the shared notes it owns."""
    return Note.objects.filter(Q(agent_id=agent.pk) | Q(agent_id=SHARED_AGENT, owner=agent.pk)).order_by(
        "created_at", "id"
    )


def export_lines(agent: Agent) -> Iterator[str]:
    """The agent's export, line by line (stable order, so two exports of one state are equal)."""
    yield _line({"type": FORMAT, "version": VERSION, "agent": row(agent)})
    ids = []
    for note in notes_of(agent).iterator():
        ids.append(note.pk)
        yield _line({"type": "note", **row(note, INDEX_STATE)})
    for link in Link.objects.filter(source_id__in=ids).order_by("source_id", "target_id"):
        yield _line({"type": "link", **row(link, SURROGATE)})
    for event in NoteEvent.objects.filter(note_id__in=ids).order_by("note_id", "created_at", "id"):
        yield _line({"type": "event", **row(event, SURROGATE)})
    for pair in Pair.objects.filter(newer_id__in=ids).order_by("newer_id", "older_id"):
        yield _line({"type": "pair", **row(pair, SURROGATE)})
    yield from _layer_lines(agent)


def _layer_lines(agent: Agent) -> Iterator[str]:
    for block in CoreBlock.objects.filter(agent=agent).order_by("subject", "name"):
        events = list(block.events.order_by("created_at", "id"))
        position: dict[int | None, int] = {e.pk: i for i, e in enumerate(events)}
        rows = []
        for event in events:
            data = row(event, ("id", "block", "undone_by"))
            data["undone_by"] = position.get(event.undone_by_id)
            rows.append(data)
        yield _line({"type": "core_block", **row(block, ("id",)), "events": rows})
    facts = list(Fact.objects.filter(agent_id=agent.pk).order_by("created_at", "id"))
    fact_position: dict[int | None, int] = {f.pk: i for i, f in enumerate(facts)}
    for fact in facts:
        data = row(fact, ("id", "superseded_by"))
        data["superseded_by"] = fact_position.get(fact.superseded_by_id)
        yield _line({"type": "fact", **data})
    for episode in Episode.objects.filter(agent_id=agent.pk).order_by("ended_at", "id"):
        yield _line({"type": "episode", **row(episode, SURROGATE)})


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def is_export(first_line: str) -> bool:
    try:
        head = json.loads(first_line)
    except ValueError:
        return False
    return isinstance(head, dict) and head.get("type") == FORMAT


# --- restore ----------------------------------------------------------------------------


@dataclass
class RestoreResult:
    agents: int = 0
    notes: int = 0
    links: int = 0
    events: int = 0
    pairs: int = 0
    core_blocks: int = 0
    facts: int = 0
    episodes: int = 0
    existing: int = 0  # notes already present (skipped, with their links and events)
    dangling: int = 0  # links or references to notes in no restored file
    note_ids: list[uuid.UUID] = field(default_factory=list)


def restore(lines_per_file: Iterable[Iterable[str]]) -> RestoreResult:
    """Restore one or more exports in one transaction; notes first, so cross-file links resolve."""
    agents: list[Agent] = []
    notes: list[dict[str, Any]] = []
    links: list[Link] = []
    events: list[NoteEvent] = []
    pairs: list[Pair] = []
    layers: dict[str, list[dict[str, Any]]] = {"core_block": [], "fact": [], "episode": []}
    for lines in lines_per_file:
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
                kind = item.pop("type")
            except (ValueError, KeyError, AttributeError):
                raise ValueError(f"line {number} is not an amem export line") from None
            if kind not in (FORMAT, "note", "link", "event", "pair", *layers):
                raise ValueError(f"line {number} has unknown type {kind!r}")
            try:
                _check_ids(kind, item)
            except InvalidId as exc:
                raise ValueError(f"line {number}: {exc}") from None
            if kind == FORMAT:
                agents.append(build(Agent, item["agent"]))
            elif kind == "note":
                notes.append(item)
            elif kind == "link":
                links.append(build(Link, item, SURROGATE))
            elif kind == "event":
                events.append(build(NoteEvent, item, SURROGATE))
            elif kind == "pair":
                pairs.append(build(Pair, item, SURROGATE))
            else:
                layers[kind].append(item)
    result = RestoreResult()
    with transaction.atomic():
        known_agents = set(Agent.objects.filter(pk__in=[a.pk for a in agents]).values_list("pk", flat=True))
        fresh_agents = [a for a in agents if a.pk not in known_agents]
        Agent.objects.bulk_create(fresh_agents)
        result.agents = len(fresh_agents)
        _restore_notes(notes, result)
        ends = {x.source_id for x in links} | {x.target_id for x in links}
        present = set(Note.objects.filter(pk__in=ends).values_list("pk", flat=True))
        restored = set(result.note_ids)
        fresh_links = [x for x in links if x.source_id in restored and x.target_id in present]
        result.dangling += sum(1 for x in links if x.source_id in restored and x.target_id not in present)
        Link.objects.bulk_create(fresh_links, ignore_conflicts=True, batch_size=500)
        result.links = len(fresh_links)
        fresh_events = [e for e in events if e.note_id in restored]
        NoteEvent.objects.bulk_create(fresh_events, batch_size=500)
        result.events = len(fresh_events)
        _restore_pairs(pairs, restored, result)
        _restore_core(layers["core_block"], result)
        _restore_facts(layers["fact"], result)
        _restore_episodes(layers["episode"], result)
    return result


def _restore_pairs(pairs: list[Pair], restored: set[uuid.UUID], result: RestoreResult) -> None:
    """A restored note's pairs, when the other note is there too."""
    present = set(Note.objects.filter(pk__in={p.older_id for p in pairs}).values_list("pk", flat=True))
    fresh = [p for p in pairs if p.newer_id in restored and p.older_id in present]
    result.dangling += sum(1 for p in pairs if p.newer_id in restored and p.older_id not in present)
    Pair.objects.bulk_create(fresh, ignore_conflicts=True, batch_size=500)
    result.pairs = len(fresh)


def _check_ids(kind: str, item: dict[str, Any]) -> None:
    """Every id of a line by the rules the models keep (memories/ids.py), before anything is written.

    An export is a file anyone can edit: its agent id becomes a file name on the next export.
    """
    if kind == FORMAT:
        build(Agent, item.get("agent") or {}).check_ids()
    elif kind == "note":
        build(Note, item, INDEX_STATE).check_ids()
    elif kind == "core_block":
        check_agent_id(item.get("agent_id"))
        build(CoreBlock, {k: v for k, v in item.items() if k != "events"}, ("id",)).check_ids()
    elif kind == "fact":
        build(Fact, {k: v for k, v in item.items() if k != "superseded_by"}, ("id", "superseded_by")).check_ids()
    elif kind == "episode":
        build(Episode, item, SURROGATE).check_ids()


def _restore_core(items: list[dict[str, Any]], result: RestoreResult) -> None:
    for item in items:
        event_rows = item.pop("events", [])
        block = build(CoreBlock, item, ("id",))
        if CoreBlock.objects.filter(agent_id=block.agent_id, subject=block.subject, name=block.name).exists():
            continue  # restoring twice changes nothing
        block.save(force_insert=True)
        saved = [build(CoreEvent, {**data, "block_id": block.pk}, ("id", "undone_by")) for data in event_rows]
        CoreEvent.objects.bulk_create(saved)
        saved = list(block.events.order_by("created_at", "id"))
        for event, data in zip(saved, event_rows, strict=True):
            if data.get("undone_by") is not None:
                event.undone_by = saved[data["undone_by"]]
                event.save(update_fields=["undone_by"])
        result.core_blocks += 1


def _restore_facts(items: list[dict[str, Any]], result: RestoreResult) -> None:
    """Facts in export order; ``superseded_by`` is an index into the same agent's facts."""
    by_agent: dict[str, list[Fact]] = {}
    for item in items:
        fact = build(Fact, {k: v for k, v in item.items() if k != "superseded_by"}, ("id", "superseded_by"))
        twin = Fact.objects.filter(
            agent_id=fact.agent_id,
            subject=fact.subject,
            relation=fact.relation,
            object=fact.object,
            valid_from=fact.valid_from,
            created_at=fact.created_at,
        ).first()
        if twin is None:
            fact.save(force_insert=True)
            result.facts += 1
        by_agent.setdefault(fact.agent_id, []).append(twin or fact)
    for item, fact in zip(items, [f for fs in _in_order(items, by_agent) for f in fs], strict=True):
        index = item.get("superseded_by")
        agent_facts = by_agent[fact.agent_id]
        if index is not None and 0 <= index < len(agent_facts) and fact.superseded_by_id is None:
            fact.superseded_by = agent_facts[index]
            fact.save(update_fields=["superseded_by"])


def _in_order(items: list[dict[str, Any]], by_agent: dict[str, list[Fact]]) -> list[list[Fact]]:
    """The restored facts again in the order of ``items`` (one single-item list each)."""
    seen: dict[str, int] = {}
    out = []
    for item in items:
        i = seen.get(item["agent_id"], 0)
        out.append([by_agent[item["agent_id"]][i]])
        seen[item["agent_id"]] = i + 1
    return out


def _restore_episodes(items: list[dict[str, Any]], result: RestoreResult) -> None:
    for item in items:
        episode = build(Episode, item, SURROGATE)
        if not Note.objects.filter(pk=episode.note_id).exists():
            result.dangling += 1
            continue
        if Episode.objects.filter(note_id=episode.note_id).exists():
            continue
        episode.save(force_insert=True)
        result.episodes += 1


def _restore_notes(items: list[dict[str, Any]], result: RestoreResult) -> None:
    refs = ("merged_into_id",)
    built = [build(Note, {k: v for k, v in item.items() if k not in refs}, INDEX_STATE) for item in items]
    existing = set(Note.objects.filter(pk__in=[n.pk for n in built]).values_list("pk", flat=True))
    fresh = [n for n in built if n.pk not in existing]
    for fresh_note in fresh:
        fresh_note.index_dirty = True  # the index is rebuilt from the database
    Note.objects.bulk_create(fresh, batch_size=500)
    # auto_now overwrote updated_at on insert; bulk_update writes the exported value back as is.
    by_id = {n.pk: n for n in fresh}
    for item in items:
        note = by_id.get(uuid.UUID(item["id"]))
        if note is not None:
            note.updated_at = dt.datetime.fromisoformat(item["updated_at"])
    Note.objects.bulk_update(fresh, ["updated_at"], batch_size=500)
    # References to other notes, once every note of every file exists.
    wanted = {uuid.UUID(v) for item in items for k in refs if (v := item.get(k))}
    present = set(Note.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    changed = []
    for item in items:
        note = by_id.get(uuid.UUID(item["id"]))
        if note is None:
            continue
        for key in refs:
            target = uuid.UUID(item[key]) if item.get(key) else None
            if target is not None and target not in present:
                result.dangling += 1
                target = None
            setattr(note, key, target)
        if note.merged_into_id:
            changed.append(note)
    Note.objects.bulk_update(changed, list(refs), batch_size=500)
    result.notes, result.existing = len(fresh), len(existing)
    result.note_ids = [n.pk for n in fresh]
