"""Fixtures for the write pipeline: offline by default, a fake provider on request, config overrides."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from engine.config import get_config
from engine.index.store import VectorStore
from memories import access
from memories.models import Agent, Link, Note, NoteEvent


@pytest.fixture(autouse=True)
def _offline(offline_llm) -> None:
    """Every test here runs on the offline rules unless it asks for the fake provider."""


@pytest.fixture
def engine_config(settings) -> Iterator[Callable[..., None]]:
    """Override EngineConfig values (AMEM settings) for one test."""

    def override(**values: object) -> None:
        settings.AMEM = {**settings.AMEM, **values}
        get_config.cache_clear()

    yield override
    get_config.cache_clear()


@pytest.fixture
def snapshot() -> Callable[[VectorStore, Agent], tuple]:
    """Everything a failed write must leave untouched: rows, history, links and the index."""

    def take(store: VectorStore, agent: Agent) -> tuple:
        notes = tuple(Note.objects.order_by("pk").values_list("pk", "content", "revision", "is_active", "sources"))
        events = NoteEvent.objects.count()
        links = Link.objects.count()
        collection = access.collection_for(agent)
        indexed = store.count(collection) if collection in store.collections() else 0
        return notes, events, links, indexed

    return take
