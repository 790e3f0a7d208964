"""/api/v1/ routes of the memory layers (docs/memory-layers.md; contract in LAYERS_API.md).

Same rules as surfaces/api/agent.py: the bearer key decides the agent, bodies
reject unknown fields, every operation is one engine call. Core blocks, facts and
episodes are looked up only among the caller's own, so another agent's data is a
404 like a missing one.
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Query, Router

from engine.annotations import facts
from engine.layers import core, episodes, recall, reflection
from memories.models import Agent
from surfaces.api.auth import AgentKey
from surfaces.api.layer_schemas import (
    BlockOut,
    BlocksOut,
    CoreEditIn,
    EpisodeClosedOut,
    EpisodeCloseIn,
    EpisodesOut,
    FactIn,
    FactOut,
    FactQuery,
    FactsOut,
    RecallIn,
    RecallOut,
    ReflectOut,
)
from surfaces.api.throttles import KeyRateThrottle

router = Router(auth=AgentKey(), throttle=[KeyRateThrottle()], tags=["memory layers"])


def _agent(request: HttpRequest) -> Agent:
    return request.auth  # type: ignore[attr-defined]


@router.post("/recall", response=RecallOut)
def recall_bundle(request: HttpRequest, body: RecallIn):
    """Core memory, relevant notes and facts, the latest episode: packed to ``token_budget`` tokens."""
    bundle = recall.build(
        _agent(request),
        body.query,
        token_budget=body.token_budget,
        subject=body.subject,
        limit=body.limit,
        wrapper=body.wrapper,
        min_relevance=body.min_relevance,
    )
    return bundle.as_dict()


@router.get("/core", response=BlocksOut)
def list_core(request: HttpRequest, subject: str = ""):
    """The agent's core-memory blocks about ``subject`` ("" = about the agent itself)."""
    return {"blocks": [core.as_dict(b) for b in core.blocks(_agent(request), subject)]}


@router.get("/core/{name}", response=BlockOut)
def get_core(request: HttpRequest, name: str, subject: str = ""):
    return core.as_dict(core.get_block(_agent(request), name, subject))


@router.post("/core/{name}/replace", response=BlockOut)
def replace_core(request: HttpRequest, name: str, body: CoreEditIn):
    """Set the value at a dot path ("" = the whole block); over the size limit → 422, nothing changed."""
    return core.as_dict(core.replace(_agent(request), name, body.path, body.value, subject=body.subject))


@router.post("/core/{name}/append", response=BlockOut)
def append_core(request: HttpRequest, name: str, body: CoreEditIn):
    """Append to the list at a dot path; over the size limit → 422, nothing changed."""
    return core.as_dict(core.append(_agent(request), name, body.path, body.value, subject=body.subject))


@router.post("/facts", response={201: FactOut})
def add_fact(request: HttpRequest, body: FactIn):
    """A fact by hand; a contradicting current one (single-valued relation) is closed, not deleted."""
    fact = facts.add_fact(
        _agent(request), body.subject, body.relation, body.object, valid_from=body.valid_from, sources=body.sources
    )
    return facts.as_dict(fact)


@router.get("/facts", response=FactsOut)
def query_facts(request: HttpRequest, params: Query[FactQuery]):
    """Facts within ``depth`` hops of ``entity``, true now or at ``as_of``."""
    found = facts.graph_query(_agent(request), params.entity, depth=params.depth, as_of=params.as_of)
    return {"facts": [facts.as_dict(f) for f in found]}


@router.post("/episodes/close", response={201: EpisodeClosedOut})
def close_episode(request: HttpRequest, body: EpisodeCloseIn):
    """Close a conversation session: its summary note, linked to the turns it covers."""
    episode = episodes.close(_agent(request), body.session)
    return episodes.as_dict(episode)


@router.get("/episodes", response=EpisodesOut)
def list_episodes(request: HttpRequest, query: str = "", limit: int = 5):
    """Episodes by topic (``query``) or the most recent ``limit``."""
    found = episodes.recall(_agent(request), query=query or None, limit=limit)
    return {"episodes": [episodes.as_dict(e) for e in found]}


@router.post("/reflect", response=ReflectOut)
def reflect_now(request: HttpRequest):
    """Write a reflection now over this agent's notes since its last one (what recurs, what changed,
    what is open), citing them; ``nothing_new`` when fewer than three notes came since."""
    agent = _agent(request)
    note = reflection.reflect(agent, actor=agent.pk)
    if note is None:
        return {"outcome": "nothing_new", "cites": []}
    return {"outcome": "written", "id": str(note.pk), "text": note.content, "cites": reflection.cited_by(note)}
