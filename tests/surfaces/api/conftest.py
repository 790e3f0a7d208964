"""Fixtures for the agent API: agents with keys, a JSON client per key, the offline LLM."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.test import Client

from memories.models import Agent, ApiKey, Fact, Link, Note, NoteEvent


@pytest.fixture(autouse=True)
def _offline(offline_llm) -> None:
    """Every test here runs on the offline rules unless it asks for the fake provider."""


class AgentClient:
    """django.test.Client speaking JSON with one bearer key (or none)."""

    def __init__(self, key: str | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {key}"} if key is not None else {}

    def _send(self, method: str, path: str, body: object = None, **headers: str):
        data = body if isinstance(body, (str, bytes)) or body is None else json.dumps(body)
        return getattr(self.client, method)(
            f"/api/v1{path}", data=data, content_type="application/json", headers={**self.headers, **headers}
        )

    def get(self, path: str, **headers: str):
        return self.client.get(f"/api/v1{path}", headers={**self.headers, **headers})

    def post(self, path: str, body: object = None, **headers: str):
        return self._send("post", path, body, **headers)

    def patch(self, path: str, body: object = None, **headers: str):
        return self._send("patch", path, body, **headers)

    def delete(self, path: str, **headers: str):
        return self.client.delete(f"/api/v1{path}", headers={**self.headers, **headers})


def key_for(agent: Agent) -> str:
    return ApiKey.issue(agent)[1]


@pytest.fixture
def as_alice(alice) -> AgentClient:
    return AgentClient(key_for(alice))


@pytest.fixture
def as_bob(bob) -> AgentClient:
    return AgentClient(key_for(bob))


@pytest.fixture
def note_fields() -> frozenset[str]:
    """The fields every note in an answer carries (docs/api.md); a search hit and a note read by id add their own."""
    return frozenset(
        {"id", "content", "category", "note_type", "keywords", "tags", "topics", "context"}
        | {"subjects", "sources", "scope", "created_at"}
    )


@pytest.fixture
def snapshot() -> Callable[[], tuple]:
    """What a failed request must leave untouched: notes, history, links, facts."""

    def take() -> tuple:
        notes = tuple(
            Note.objects.order_by("pk").values_list("pk", "content", "revision", "is_active", "sources", "context")
        )
        return notes, NoteEvent.objects.count(), Link.objects.count(), Fact.objects.count()

    return take
