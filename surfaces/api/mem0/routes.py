"""mem0's calls, served at /mem0/ so that ``MemoryClient(host="http://amem:8000/mem0")`` works.

Each call is mapped onto amem's own operations (docs/api.md has the table):

* the key decides the agent, as for the native API; ``user_id`` is who a memory is about (a
  subject), ``run_id`` its conversation session;
* ``infer: true`` writes each user message through the full write pipeline (dedup, construct,
  link, evolve), ``infer: false`` each message on the episodic path, as given;
* ``filters`` are read by surfaces/api/mem0/filters.py; a search asks amem's hybrid search for a
  pool of the agent's notes (narrowed to the subject when the filter names one user), keeps those
  the filter holds for and returns the best ``top_k``;
* delete retires (undoable in review); erasure stays the native API's ``?purge=true``.

What amem cannot do answers 400 naming the option and why; a path mem0 has and amem does not
serve answers 404 naming it (amem_site/mem0_api.py).
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import uuid
from collections.abc import Iterable
from typing import Any

from django.db.models import Q, TextField
from django.db.models.functions import Cast
from django.http import HttpRequest
from django.utils import timezone
from ninja import Query, Router, Schema
from pydantic import Field

from engine.config import get_config
from engine.errors import AmemError, InvalidInput, QualityRejected
from engine.retrieval.heat import bump_heat
from engine.retrieval.search import MAX_LIMIT as MAX_SEARCH_LIMIT
from engine.retrieval.search import search
from engine.text import check_content
from engine.write import edit
from engine.write.crud import USER_ROLES
from engine.write.pipeline import EpisodicItem, add_episodic_batch, add_memory, clean_metadata
from memories import access
from memories.models import Agent, Note
from surfaces.api.mem0 import filters as mem0_filters
from surfaces.api.mem0 import shapes
from surfaces.api.mem0.auth import Caller, TokenKey, acting_agent
from surfaces.api.mem0.schemas import (
    UNSUPPORTED,
    AddIn,
    BatchDeleteIn,
    BatchUpdateIn,
    GetAllIn,
    SearchIn,
    UpdateIn,
)
from surfaces.api.throttles import KeyRateThrottle

router = Router(auth=TokenKey(), throttle=[KeyRateThrottle()], tags=["mem0"])

# A search filtered by more than its user and agent asks for this many more candidates than it
# returns, so that a filter narrower than the subject (a category, a session, metadata) still
# leaves top_k; one scoped to the user alone only needs room for the notes of nobody in
# particular, which the subject's index query also returns (docs/api.md says so).
POOL_FACTOR, POOL_MIN, SCOPE_MARGIN = 3, 30, 10


def _caller(request: HttpRequest) -> Caller:
    return request.auth  # type: ignore[attr-defined]


def _refuse_unsupported(given: dict[str, Any]) -> None:
    for name, reason in UNSUPPORTED.items():
        if given.get(name) is not None:
            raise InvalidInput(f"{name}: not supported by amem: {reason}")


def _entity(body_value: str | None, filters: object, name: str) -> str | None:
    """An entity id given at the top of the body or as a plain value in ``filters``; both must agree."""
    in_filters = mem0_filters.plain_value(filters, name)
    if body_value and in_filters and body_value != in_filters:
        raise InvalidInput(f"{name}: {body_value!r} in the body and {in_filters!r} in filters")
    return body_value or in_filters


def _occurred_at(timestamp: float | None) -> dt.datetime | None:
    if timestamp is None:
        return None
    try:
        return dt.datetime.fromtimestamp(timestamp, tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        raise InvalidInput("timestamp: not a Unix time amem can store") from None


# --- the key ---------------------------------------------------------------------------


@router.get("/v1/ping/")
def ping(request: HttpRequest):
    """Validate the key (mem0's client calls this first); ``amem`` says what the key is.

    mem0's client will not start without an org and a project: amem answers ``amem`` and the key's
    agent (or gateway prefix). The project calls themselves are not served (a 404 naming them).
    """
    caller = _caller(request).describe()
    project = caller.get("agent") or caller.get("prefix")
    return {"status": "ok", "org_id": "amem", "project_id": project, "user_email": None, "amem": caller}


# --- writes ----------------------------------------------------------------------------


@router.post("/v3/memories/add/")
@router.post("/v1/memories/")
def add(request: HttpRequest, body: AddIn):
    """Store messages: ``infer`` true → the full write pipeline per user message; false → each message as given."""
    given = body.model_dump()
    _refuse_unsupported(given)
    _refuse_unsupported(body.filters or {})
    user = _entity(body.user_id, body.filters, "user_id")
    run = _entity(body.run_id, body.filters, "run_id")
    agent = acting_agent(request, _entity(body.agent_id, body.filters, "agent_id"))
    subjects = [user] if user else []
    occurred_at = _occurred_at(body.timestamp)
    messages = [(i, m) for i, m in enumerate(body.messages) if m.role.strip().lower() != "system"]
    if body.infer:
        results = _add_inferred(agent, messages, subjects, occurred_at, run or "", body.metadata)
    else:
        results = _add_as_given(agent, messages, subjects, occurred_at, run or "", body.metadata)
    return {"message": "ok", "status": "SUCCEEDED", "event_id": str(uuid.uuid4()), "results": results}


def _check_texts(messages, *, skip_short: bool) -> None:
    """Each message's text as the engine will check it, the error naming the message."""
    cfg = get_config()
    for i, message in messages:
        try:
            check_content(message.content, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars)
        except QualityRejected as exc:
            if not skip_short:
                raise QualityRejected(f"messages.{i}.content: {exc}") from None
        except AmemError as exc:
            raise type(exc)(f"messages.{i}.content: {exc}") from None


def _add_inferred(agent, messages, subjects, occurred_at, session, metadata) -> list[dict]:
    # The user's messages carry what to remember; an exchange without one, the assistant's.
    said = [(i, m) for i, m in messages if m.role.strip().lower() in USER_ROLES] or messages
    clean_metadata(metadata)
    _check_texts(said, skip_short=True)  # a bad message refuses the call before any is written
    results = []
    for _, message in said:
        try:
            written = add_memory(
                message.content, agent, subjects=subjects, occurred_at=occurred_at, session=session, metadata=metadata
            )
        except QualityRejected:
            continue  # "thanks!" holds nothing to remember: mem0 would extract nothing either
        results.append(shapes.write_result(written.note, written.outcome))
    return results


def _add_as_given(agent, messages, subjects, occurred_at, session, metadata) -> list[dict]:
    _check_texts(messages, skip_short=False)
    items, previous = [], ""
    for _, message in messages:
        items.append(EpisodicItem(message.content, subjects, (), occurred_at, "private", previous, session, metadata))
        previous = message.content
    if not items:
        raise InvalidInput("messages: nothing to store (only system messages)")
    return [shapes.write_result(note, "created") for note in add_episodic_batch(agent, items)]


# --- reads -----------------------------------------------------------------------------


def _search_pool(top_k: int, body: SearchIn) -> int:
    if mem0_filters.only_scope(body.filters) and not body.categories and not body.metadata:
        return min(MAX_SEARCH_LIMIT, top_k + SCOPE_MARGIN)
    return min(MAX_SEARCH_LIMIT, max(top_k * POOL_FACTOR, POOL_MIN))


def _with_options(filters: dict | None, categories: list[str] | None, metadata: dict | None, where: str):
    """``filters`` and the call's own ``categories`` / ``metadata`` options, all of which must hold."""
    tests = [mem0_filters.compile_filters(filters, where)]
    if categories:
        tests.append(
            mem0_filters.compile_filters({"categories": {"in": [c.lower() for c in categories]}}, "categories")
        )
    if metadata:
        tests.append(mem0_filters.compile_filters({"metadata": metadata}, "metadata"))
    return lambda view: all(test(view) for test in tests)


def _fields(answer: dict, fields: list[str] | None) -> dict:
    return {k: v for k, v in answer.items() if k == "id" or k in fields} if fields else answer


@router.post("/v3/memories/search/")
@router.post("/v2/memories/search/")
def search_memories(request: HttpRequest, body: SearchIn):
    """amem's hybrid search over what the agent may read, kept to what ``filters`` hold for, best ``top_k``."""
    _refuse_unsupported(body.model_dump())
    user = mem0_filters.plain_value(body.filters, "user_id")
    agent = acting_agent(request, mem0_filters.plain_value(body.filters, "agent_id"))
    holds = _with_options(body.filters, body.categories, body.metadata, "filters")
    top_k = min(body.top_k, MAX_SEARCH_LIMIT)
    found = search(body.query, agent, limit=_search_pool(top_k, body), subject=user, heat=False, links=False)
    hits = [r for r in found if holds(mem0_filters.NoteView.of(r.note))]
    if body.threshold is not None:
        hits = [r for r in hits if r.score >= body.threshold]
    hits = hits[:top_k]
    # Only what is returned counts as used, as for the native search.
    bump_heat([r.note.pk for r in hits], timezone.now())
    return {"results": [_fields(shapes.found(r, user=user), body.fields) for r in hits]}


class Page(Schema):
    page: int = Field(default=1, ge=1)
    page_size: int = Field(default=100, ge=1, le=1000)


LISTED_FIELDS = (
    "id",
    "content",
    "content_hash",
    "subjects",
    "owner",
    "session",
    "category",
    "metadata",
    "created_at",
    "updated_at",
)


def _owned(agent: Agent, *, user: str | None = None, run: str | None = None):
    """The agent's own active notes, newest first, without what a listing never reads (the vector).

    ``run`` narrows by session; ``user`` only roughly, by the subject's JSON text inside the stored
    list (containment in a JSON list is not one query on SQLite and PostgreSQL alike): the filter's
    predicate decides exactly, this spares it the other users' notes.
    """
    notes = Note.objects.active().filter(owner=agent.pk)
    if run:
        notes = notes.filter(session=run)
    if user:
        # SQLite keeps the JSON as written (non-ASCII escaped), PostgreSQL's text of jsonb unescaped.
        spelled = Q(subjects_text__contains=json.dumps(user)) | Q(
            subjects_text__contains=json.dumps(user, ensure_ascii=False)
        )
        notes = notes.annotate(subjects_text=Cast("subjects", TextField())).filter(spelled)
    return notes.only(*LISTED_FIELDS).order_by("-created_at", "-pk")


@router.post("/v3/memories/")
@router.post("/v2/memories/")
def get_all(request: HttpRequest, body: GetAllIn, page: Query[Page]):
    """The agent's own memories that ``filters`` hold for, newest first, a page at a time."""
    user = mem0_filters.plain_value(body.filters, "user_id")
    agent = acting_agent(request, mem0_filters.plain_value(body.filters, "agent_id"))
    holds = _with_options(body.filters, body.categories, None, "filters")
    dates = {k: v for k, v in (("gte", body.start_date), ("lte", body.end_date)) if v}
    in_range = mem0_filters.compile_filters({"created_at": dates} if dates else None, "start_date/end_date")
    notes = _owned(agent, user=user, run=mem0_filters.plain_value(body.filters, "run_id"))
    matching = [n for n in notes.iterator() if holds(view := mem0_filters.NoteView.of(n)) and in_range(view)]
    start = (page.page - 1) * page.page_size
    results = [_fields(shapes.memory(n, user=user), body.fields) for n in matching[start : start + page.page_size]]
    more = start + page.page_size < len(matching)
    return {
        "count": len(matching),
        "next": f"?page={page.page + 1}&page_size={page.page_size}" if more else None,
        "previous": f"?page={page.page - 1}&page_size={page.page_size}" if page.page > 1 else None,
        "results": results,
    }


def _note(request: HttpRequest, memory_id: str, agent_id: str | None) -> tuple[Agent, Note]:
    agent = acting_agent(request, agent_id)
    return agent, access.get_note_for(agent, memory_id)


@router.get("/v1/memories/{memory_id}/")
def get_memory(request: HttpRequest, memory_id: str, agent_id: str | None = None):
    """One memory the agent may read; any other id is 404, as in the native API."""
    _, note = _note(request, memory_id, agent_id)
    return shapes.memory(note)


@router.get("/v1/memories/{memory_id}/history/")
def memory_history(request: HttpRequest, memory_id: str, agent_id: str | None = None):
    """The memory's text changes, oldest first: ADD, UPDATE, DELETE (a deleted memory's too)."""
    agent = acting_agent(request, agent_id)
    note = access.get_note_for(agent, memory_id, retired=True)
    return shapes.history(note, note.events.all().order_by("created_at", "pk"))


class EntityQuery(Schema):
    agent_id: str | None = None
    org_id: str | None = None
    project_id: str | None = None


@router.get("/v1/entities/")
def entities(request: HttpRequest, query: Query[EntityQuery]):
    """The users (subjects), agents and runs (sessions) the key's memories name."""
    caller = _caller(request)
    agents = [acting_agent(request, query.agent_id)] if query.agent_id else caller.agents()
    found: dict[tuple[str, str], dict] = {}
    for agent in agents:
        rows = (
            Note.objects.active().filter(owner=agent.pk).values_list("subjects", "session", "created_at", "updated_at")
        )
        _count(found, "agent", agent.pk, agent.pk, agent.created_at, agent.created_at)
        found[("agent", agent.pk)]["total_memories"] = 0
        for subjects, session, created, updated in rows.iterator():
            found[("agent", agent.pk)]["total_memories"] += 1
            for subject in subjects or []:
                _count(found, "user", subject, agent.pk, created, updated)
            if session:
                _count(found, "run", session, agent.pk, created, updated)
    results = sorted(found.values(), key=lambda e: (e["type"], e["name"]))
    return {"count": len(results), "next": None, "previous": None, "results": results}


def _count(found: dict, kind: str, name: str, owner: str, created: dt.datetime, updated: dt.datetime) -> None:
    entry = found.setdefault(
        (kind, name),
        {
            "id": name,
            "name": name,
            "type": kind,
            "total_memories": 0,
            "owner": owner,
            "organization": None,
            "metadata": {},
            "created_at": created,
            "updated_at": updated,
        },
    )
    entry["total_memories"] += 1
    entry["created_at"] = min(entry["created_at"], created)
    entry["updated_at"] = max(entry["updated_at"], updated)


# --- changes ---------------------------------------------------------------------------


@router.put("/v1/memories/{memory_id}/")
def update_memory(request: HttpRequest, memory_id: str, body: UpdateIn, agent_id: str | None = None):
    """A new text (re-constructed, re-embedded, the old one kept in history) and/or new metadata."""
    _refuse_unsupported({"timestamp_update": body.timestamp, "expiration_date": body.expiration_date})
    if body.text is None and body.metadata is None:
        raise InvalidInput("text or metadata: give at least one")
    agent, note = _note(request, memory_id, agent_id)
    note = _apply_update(agent, note.pk, body.text, body.metadata)
    return shapes.memory(note)


def _apply_update(agent: Agent, note_id: object, text: str | None, metadata: dict | None) -> Note:
    note = access.get_note_for_write(agent, note_id)
    if text is not None:
        note = edit.update_memory(note.pk, text, agent)
    if metadata is not None:
        note = edit.set_metadata(note.pk, metadata, agent)
    return note


@router.delete("/v1/memories/{memory_id}/")
def delete_memory(request: HttpRequest, memory_id: str, agent_id: str | None = None, delete_linked: bool = False):
    """Retire the memory: it leaves every search and listing; its history stays (undoable in review).

    ``delete_linked`` changes nothing: amem changes a memory in place, so it has no older versions.
    """
    agent, note = _note(request, memory_id, agent_id)
    edit.retire_memory(note.pk, agent, reason="mem0")
    return {"message": "Memory deleted successfully!"}


class DeleteAllQuery(Schema):
    filters: str | None = Field(default=None, max_length=2000)
    user_id: str | None = Field(default=None, max_length=200)
    agent_id: str | None = Field(default=None, max_length=64)
    run_id: str | None = Field(default=None, max_length=200)
    app_id: str | None = None
    org_id: str | None = None
    project_id: str | None = None


@router.delete("/v1/memories/")
def delete_all(request: HttpRequest, query: Query[DeleteAllQuery]):
    """Retire every memory of the agent about ``user_id`` and/or in ``run_id`` (at least one of those or
    ``agent_id`` must be named: an empty call never retires everything)."""
    filters = _query_filters(query.filters)
    user = _entity(query.user_id, filters, "user_id")
    agent_id = _entity(query.agent_id, filters, "agent_id")
    run = _entity(query.run_id, filters, "run_id")
    _refuse_unsupported({"app_id": query.app_id or mem0_filters.plain_value(filters, "app_id")})
    if not (user or agent_id or run):
        raise InvalidInput("user_id, agent_id or run_id: name whose memories to delete")
    agent = acting_agent(request, agent_id)
    notes = _owned(agent, user=user, run=run)
    doomed = [n.pk for n in notes.iterator() if not user or user in (n.subjects or [])]
    for note_id in doomed:
        edit.retire_memory(note_id, agent, reason="mem0")
    return {"message": "Memories deleted successfully!", "count": len(doomed)}


def _query_filters(raw: str | None) -> dict[str, Any] | None:
    """``filters`` in a query string: JSON, or the Python dict mem0's client writes there
    (``delete_all(filters={"user_id": "bob"})`` sends ``filters={'user_id': 'bob'}``)."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = None
    if not isinstance(value, dict):
        raise InvalidInput('filters: not an object of entity ids, e.g. {"user_id": "bob"}')
    unknown = sorted(set(value) - {"user_id", "agent_id", "run_id", "app_id"})
    if unknown:
        raise InvalidInput(f"filters: delete_all takes only entity ids (user_id, agent_id, run_id), not {unknown}")
    return value


def _writable(agent: Agent, ids: Iterable[str]) -> list[Note]:
    """Every id first, so that one the agent may not change refuses the whole batch before any change."""
    return [access.get_note_for_write(agent, memory_id) for memory_id in ids]


@router.put("/v1/batch/")
def batch_update(request: HttpRequest, body: BatchUpdateIn, agent_id: str | None = None):
    """Update up to 1000 memories; all must be the agent's to change, or nothing is changed."""
    agent = acting_agent(request, agent_id)
    for item in body.memories:
        if item.text is None and item.metadata is None:
            raise InvalidInput(f"memories: {item.memory_id}: give text or metadata")
    _writable(agent, (item.memory_id for item in body.memories))
    for item in body.memories:
        _apply_update(agent, item.memory_id, item.text, item.metadata)
    return {"message": f"Successfully updated {len(body.memories)} memories"}


@router.delete("/v1/batch/")
def batch_delete(request: HttpRequest, body: BatchDeleteIn, agent_id: str | None = None):
    """Retire up to 1000 memories; all must be the agent's to change, or nothing is retired."""
    agent = acting_agent(request, agent_id)
    notes = _writable(agent, (item.memory_id for item in body.memories))
    for note in notes:
        edit.retire_memory(note.pk, agent, reason="mem0")
    return {"message": f"Successfully deleted {len(notes)} memories"}
