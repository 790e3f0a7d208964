"""Shared fixtures: a fresh index per test (both backends where asked), agents, notes."""

from __future__ import annotations

import pytest

from engine import runtime
from engine.store import ClientStore, EdgeStore
from memories.models import Agent


def _make_store(kind: str, tmp_path):
    emb = runtime.embedder()
    if kind == "edge":
        return EdgeStore(tmp_path / "qdrant", emb.model_name, emb.dimension)
    return ClientStore(emb.model_name, emb.dimension, url=":memory:")


@pytest.fixture
def store(tmp_path):
    """The embedded (qdrant-edge) index, fresh for this test."""
    s = _make_store("edge", tmp_path)
    old = runtime.set_store(s)
    yield s
    runtime.set_store(old)
    s.close()


@pytest.fixture(params=["edge", "client"])
def any_store(request, tmp_path):
    """Each test using this runs on qdrant-edge and on qdrant-client (local mode)."""
    s = _make_store(request.param, tmp_path)
    old = runtime.set_store(s)
    yield s
    runtime.set_store(old)
    s.close()


@pytest.fixture
def make_agent(db):
    def make(agent_id: str, **fields) -> Agent:
        return Agent.objects.create(id=agent_id, **fields)

    return make


@pytest.fixture
def alice(make_agent) -> Agent:
    return make_agent("alice")


@pytest.fixture
def bob(make_agent) -> Agent:
    return make_agent("bob")
