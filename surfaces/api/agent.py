"""/api/v1/: the agent-facing JSON API (docs/architecture.md §7).

The bearer key decides the agent; no request field can name another one. A gateway key
(surfaces/gateways.py) names the agent it acts for in the ``X-Amem-Agent`` header, within
the id prefix it owns; an agent key that names another agent there is refused.
Every operation is one engine call: the engine validates, decides access
(memories/access.py) and raises errors that amem_site/api.py maps to statuses
(400 invalid, 404 not readable, 403 read-only, 422 quality gate, 503 index down).
A note that the agent cannot read, a retired one and a malformed id all give the
same 404, so the API never tells whether a note exists.
"""

from __future__ import annotations

import functools
import time

from django.conf import settings
from django.http import HttpRequest
from ninja import Query, Router
from ninja.pagination import paginate

from engine import erasure
from engine.errors import InvalidInput
from engine.llm import usage
from engine.llm.client import LlmCallRecord, recorded_calls
from engine.maintenance import runner
from engine.retrieval.search import search
from engine.write import crud, edit
from engine.write.conversation import Turn, add_conversation
from engine.write.pipeline import add_episodic, add_memory
from memories import access
from memories.models import Agent, Note
from surfaces import heavy
from surfaces.api.auth import AgentKey
from surfaces.api.schemas import (
    ConversationIn,
    ConversationOut,
    CountOut,
    EpisodicIn,
    ErasedOut,
    HistoryOut,
    IdOut,
    JobOut,
    ListedNoteOut,
    MemoryCreatedOut,
    MemoryIn,
    NoteOut,
    NotesPage,
    PatchIn,
    RetiredOut,
    SearchIn,
    SearchOut,
    TurnsIn,
    TurnsOut,
    WriteQuery,
    search_answer,
)
from surfaces.api.throttles import KeyRateThrottle

router = Router(auth=AgentKey(), throttle=[KeyRateThrottle()], tags=["memories"])


def _agent(request: HttpRequest) -> Agent:
    return request.auth  # type: ignore[attr-defined]


def _model_report(calls: list[LlmCallRecord], options: WriteQuery) -> dict:
    """Which steps fell back to the offline rules (always) and, if asked, what the model calls cost."""
    report: dict = {"fell_back": usage.fell_back(calls)}
    if options.include == "cost":
        report["cost"] = usage.cost(calls)
    return report


@router.post("/memories", response={201: MemoryCreatedOut}, exclude_unset=True)
def create_memory(request: HttpRequest, body: MemoryIn, options: Query[WriteQuery]):
    """Store a memory through the full pipeline: quality gate, dedup, construct, link, evolve."""
    with recorded_calls() as calls:
        result = add_memory(
            body.text,
            _agent(request),
            scope=body.scope,
            subjects=body.subjects,
            sources=body.sources,
            note_type=body.note_type,
            occurred_at=body.occurred_at,
        )
    return {
        "id": str(result.note.pk),
        "outcome": result.outcome,
        "links": list(result.links),
        "similar_to": result.similar_to,
        "similarity": result.similarity,
        **_model_report(calls, options),
    }


@router.post("/memories/episodic", response={201: IdOut})
def create_episodic(request: HttpRequest, body: EpisodicIn):
    """Store an event on the cheap path: quality gate and embedding only (no LLM, no dedup)."""
    note = add_episodic(
        body.text,
        _agent(request),
        scope=body.scope,
        subjects=body.subjects,
        sources=body.sources,
        occurred_at=body.occurred_at,
        context=body.context,
    )
    return {"id": str(note.pk)}


@router.post("/conversations", response={201: ConversationOut})
def create_conversation(request: HttpRequest, body: ConversationIn):
    """Store chat turns in order, each with the previous turn of its session as context.

    A turn the text rules refuse (too short, too long) is skipped and listed in ``skipped`` by
    its 0-based position; a malformed request, or one where every turn is refused, writes nothing.
    """
    agent = _agent(request)
    turns = [
        Turn(t.text, session=t.session, source=t.source, occurred_at=t.occurred_at, subjects=t.subjects)
        for t in body.turns
    ]
    store = functools.partial(
        add_conversation,
        agent,
        turns,
        scope=body.scope,
        link_adjacent=body.link_adjacent,
        deadline=time.monotonic() + settings.AMEM_HEAVY_DEADLINE,
    )
    if heavy.is_heavy_conversation(len(turns)):
        # A long conversation is heavy: a slot or 429/503 (surfaces/heavy.py).
        with heavy.slot(agent.pk):
            stored = store()
    else:
        stored = store()
    return {
        "ids": [str(n.pk) for n in stored.notes],
        "skipped": [{"position": s.position, "reason": s.reason} for s in stored.skipped],
    }


@router.post("/memories/search", response=SearchOut, exclude_none=True)
def search_memories(request: HttpRequest, body: SearchIn):
    """Hybrid search (dense + BM25, fused, heat, link walk) over the notes this agent may read."""
    results = search(
        body.query,
        _agent(request),
        limit=body.limit,
        subject=body.subject,
        topics_filter=body.topics_filter,
        explain=body.explain,
    )
    return search_answer(results)


@router.get("/memories/count", response=CountOut)
def count_memories(request: HttpRequest):
    """How many active notes this agent may read (its own, shared ones, ones granted to it)."""
    return {"count": access.count_readable(_agent(request))}


@router.get("/memories", response=list[ListedNoteOut])
@paginate(NotesPage)
def list_memories(request: HttpRequest):
    """The active notes this agent owns (private and shared), newest first, a page at a time."""
    return Note.objects.active().filter(owner=_agent(request).pk).order_by("-created_at", "-pk")


@router.get("/memories/{note_id}", response=NoteOut)
def get_memory(request: HttpRequest, note_id: str):
    """One note by id, with the ids of the notes it links to (only those this agent may read)."""
    return access.get_note_for(_agent(request), note_id)


@router.get("/memories/{note_id}/history", response=HistoryOut)
def memory_history(request: HttpRequest, note_id: str):
    """A note's history, oldest first: each change with its text before and after, who made it and when.

    A retired note's history stays readable (its last event says who retired it and why)."""
    note = access.get_note_for(_agent(request), note_id, retired=True)
    events = note.events.order_by("created_at", "pk")
    return {
        "id": str(note.pk),
        "events": [
            {
                "action": e.action,
                "actor": e.actor,
                "at": e.created_at,
                "before": (e.before or {}).get("content"),
                "after": (e.after or {}).get("content"),
            }
            for e in events
        ],
    }


@router.patch("/memories/{note_id}", response=NoteOut)
def update_memory(request: HttpRequest, note_id: str, body: PatchIn):
    """Replace a note's text (re-constructed and re-embedded; the old text stays in its history)."""
    return edit.update_memory(note_id, body.text, _agent(request), sources=body.sources)


@router.delete("/memories/{note_id}", response=RetiredOut, exclude_defaults=True)
def retire_memory(request: HttpRequest, note_id: str, purge: bool = False):
    """Retire a note: it leaves every search; its row and history stay (undoable in review).

    ``?purge=true`` erases it instead, irreversibly: its text and vector leave the row, its
    history, the index, caches, links and facts (docs/api.md "Erasure"). Only the owner may.
    """
    agent = _agent(request)
    if purge:
        done = erasure.erase_note(note_id, agent, actor=agent.pk)
        return {"id": str(note_id), "retired": True, "erased": True, "erasure": done.pk, "counts": done.counts}
    note = edit.retire_memory(note_id, agent, reason="api")
    return {"id": str(note.pk), "retired": True}


@router.delete("/subjects/{subject}", response=ErasedOut)
def erase_subject(request: HttpRequest, subject: str, purge: bool = False):
    """Erase every note this agent owns about ``subject``, its facts and core blocks (``?purge=true`` required)."""
    if not purge:
        raise InvalidInput("a subject can only be erased: add ?purge=true (irreversible)")
    agent = _agent(request)
    done = erasure.erase_subject(subject, agent, actor=agent.pk)
    return {"erasure": done.pk, "scope": done.scope, "counts": done.counts}


@router.post("/turns", response=TurnsOut, exclude_unset=True)
def apply_turns(request: HttpRequest, body: TurnsIn, options: Query[WriteQuery]):
    """The CRUD gate: the latest exchange → at most three ops (add, update, retire), each reported."""
    messages = [{"role": m.role, "content": m.content} for m in body.messages]
    with recorded_calls() as calls:
        result = crud.decide_and_apply(messages, _agent(request), sources=body.sources, occurred_at=body.occurred_at)
    return {
        "ops": [
            {
                "action": op.action,
                "fact": op.fact,
                "status": op.status,
                "note_id": op.note_id,
                "reason": op.reason,
                "write_outcome": op.write_outcome,
            }
            for op in result.ops
        ],
        "considered": list(result.considered),
        **_model_report(calls, options),
    }


def _job(agent: Agent, job: str) -> dict:
    # The caller asked for it now: no idle gate, no "wrote since the last run" check. The job
    # itself decides which notes are the agent's own (consolidation: agent_id; quality: owner).
    with heavy.slot(agent.pk):
        row = runner.run_step(job, agent)
    return {"job": job, "outcome": row.outcome, "counts": dict(row.counts), "detail": row.detail}


@router.post("/jobs/consolidate", response=JobOut)
def consolidate(request: HttpRequest):
    """Run the nightly consolidation now, over this agent's own memory notes (seed B156)."""
    return _job(_agent(request), "consolidation")


@router.post("/jobs/quality-scan", response=JobOut)
def quality_scan(request: HttpRequest):
    """Run the quality scan now over the notes this agent owns; ``items`` lists the flagged ones (B157)."""
    agent = _agent(request)
    result = _job(agent, "quality_scan")
    flagged = Note.objects.active().filter(owner=agent.pk, low_quality=True).order_by("created_at", "pk")
    result["items"] = [{"id": str(n.pk), "reasons": list(n.low_quality_reasons or [])} for n in flagged]
    return result
