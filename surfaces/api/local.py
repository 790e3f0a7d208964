"""/api/v1/local/: what management commands call when the server owns the index.

Authenticated by the data dir's local token (surfaces/local_bridge.py), not by
agent keys: the caller already has the data dir. Each endpoint runs the same
engine function the command would have run in-process.
"""

from __future__ import annotations

from ninja import Router, Schema
from ninja.security import HttpBearer

from engine.retrieval.search import search
from engine.write.pipeline import add_memory, resolve_agent
from surfaces.api.schemas import SearchOut, Text, search_answer
from surfaces.local_bridge import token_matches


class LocalToken(HttpBearer):
    def authenticate(self, request, token: str):
        return token if token_matches(token) else None


router = Router(auth=LocalToken(), tags=["local"])


class LocalSearchIn(Schema):
    agent: Text
    query: Text
    limit: int = 5
    subject: str | None = None


class AddIn(Schema):
    agent: Text
    text: Text
    scope: str = "private"
    subjects: list[str] = []
    sources: list[str] = []
    note_type: str | None = None


@router.post("/search", response=SearchOut, exclude_none=True, include_in_schema=False)
def local_search(request, body: LocalSearchIn):
    """The agent API's search answer (surfaces/api/schemas.py HitOut), for manage.py amem_search."""
    return search_answer(search(body.query, resolve_agent(body.agent), limit=body.limit, subject=body.subject))


@router.post("/add", include_in_schema=False)
def local_add(request, body: AddIn):
    result = add_memory(
        body.text,
        resolve_agent(body.agent),
        scope=body.scope,
        subjects=body.subjects,
        sources=body.sources,
        note_type=body.note_type,
        actor="cli",
    )
    return {"id": str(result.note.pk), "outcome": result.outcome, "links": len(result.links)}
