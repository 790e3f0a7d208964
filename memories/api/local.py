"""/api/v1/local/: what management commands call when the server owns the index.

Authenticated by the data dir's local token (memories/local_bridge.py), not by
agent keys: the caller already has the data dir. Each endpoint runs the same
engine function the command would have run in-process.
"""

from __future__ import annotations

from ninja import Router, Schema
from ninja.security import HttpBearer

from engine.retrieval.search import search
from engine.write.pipeline import add_memory, resolve_agent
from memories.api.schemas import Text
from memories.local_bridge import token_matches


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


def result_dict(r) -> dict:
    return {
        "id": str(r.note.pk),
        "content": r.note.content,
        "via": r.via,
        "similarity": r.similarity,
        "score": r.score,
        "rrf": r.rrf,
    }


@router.post("/search", include_in_schema=False)
def local_search(request, body: LocalSearchIn):
    results = search(body.query, resolve_agent(body.agent), limit=body.limit, subject=body.subject)
    return {"results": [result_dict(r) for r in results]}


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
