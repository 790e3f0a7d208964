"""Backing services down → 503 without internals; our own bugs → 500 without internals; nothing changed."""

from __future__ import annotations

import pytest

from engine import runtime
from engine.errors import IndexUnavailable
from surfaces.api import agent as agent_api

COFFEE = "Alex likes a flat white with oat milk every morning."
SECRET = "/srv/secret/qdrant-path"
UNAVAILABLE = {"detail": "a backing service is unavailable"}


@pytest.fixture
def index_down(monkeypatch):
    def down():
        raise IndexUnavailable(f"cannot open the embedded index {SECRET!r}: connection refused")

    monkeypatch.setattr(runtime, "store", down)


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("post", "/memories", {"text": "Sam prefers green tea in the afternoon."}),
        ("post", "/memories/search", {"query": "coffee"}),
        ("post", "/turns", {"messages": [{"role": "user", "content": "Sam prefers green tea in the afternoon."}]}),
    ],
)
def test_index_down_is_503_without_internals_and_changes_nothing(
    method, path, body, as_alice, store, snapshot, request
):
    as_alice.post("/memories/episodic", {"text": COFFEE})
    before = snapshot()
    request.getfixturevalue("index_down")
    response = as_alice.get(path) if method == "get" else as_alice.post(path, body)
    assert response.status_code == 503
    assert response.json() == UNAVAILABLE
    assert SECRET not in response.content.decode()
    assert snapshot() == before


def test_counting_needs_no_index(as_alice, store, index_down):
    # The count is the database's (the truth), so a note the index has not caught up with counts.
    as_alice.post("/memories/episodic", {"text": COFFEE})
    assert as_alice.get("/memories/count").json() == {"count": 1}


def test_reading_by_id_needs_no_index(as_alice, store, index_down):
    note_id = as_alice.post("/memories/episodic", {"text": COFFEE}).json()["id"]  # indexed later (outbox)
    assert as_alice.get(f"/memories/{note_id}").json()["content"] == COFFEE


def test_an_unexpected_error_is_500_without_internals(as_alice, store, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError(f"bug near {SECRET}")

    monkeypatch.setattr(agent_api, "search", broken)
    response = as_alice.post("/memories/search", {"query": "coffee"})
    assert response.status_code == 500
    assert response.json() == {"detail": "internal error"}


def test_a_wrong_method_is_405(as_alice, store):
    assert as_alice.get("/memories/search").status_code == 405
    assert as_alice.client.put("/api/v1/memories/count", headers=as_alice.headers).status_code == 405
    assert as_alice.post("/memories/count", {}).status_code == 405


def test_an_oversized_body_is_413_not_a_crash(as_alice, store, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    response = as_alice.post("/memories/search", {"query": "x" * 20_000})
    assert response.status_code == 413
    assert response.json() == {"detail": "the request body is larger than 10000 bytes"}


def test_the_openapi_schema_documents_every_route_behind_the_bearer_key(client, db):
    schema = client.get("/api/v1/openapi.json").json()
    assert schema["components"]["securitySchemes"] == {"AgentKey": {"type": "http", "scheme": "bearer"}}
    operations = {
        (method.upper(), path.removeprefix("/api/v1"))
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if op.get("security") == [{"AgentKey": []}]
    }
    assert operations == {
        ("POST", "/memories"),
        ("POST", "/memories/episodic"),
        ("POST", "/conversations"),
        ("POST", "/memories/search"),
        ("GET", "/memories/count"),
        ("GET", "/memories/{note_id}"),
        ("GET", "/memories/{note_id}/history"),  # what became of a note, event by event
        ("PATCH", "/memories/{note_id}"),
        ("DELETE", "/memories/{note_id}"),
        ("DELETE", "/subjects/{subject}"),  # erasure (engine/erasure.py)
        ("POST", "/turns"),
        ("GET", "/memories"),  # the list, and the agent-scoped jobs
        ("POST", "/jobs/consolidate"),
        ("POST", "/jobs/quality-scan"),
        # The memory layers (surfaces/api/layers.py)
        ("POST", "/recall"),
        ("GET", "/core"),
        ("GET", "/core/{name}"),
        ("POST", "/core/{name}/replace"),
        ("POST", "/core/{name}/append"),
        ("POST", "/facts"),
        ("GET", "/facts"),
        ("POST", "/episodes/close"),
        ("GET", "/episodes"),
        ("POST", "/reflect"),
        ("GET", "/key"),  # what a key is (an agent's, or a gateway's and its prefix)
    }
    assert not any("/local/" in path for path in schema["paths"])
    assert client.get("/api/v1/docs").status_code == 200
