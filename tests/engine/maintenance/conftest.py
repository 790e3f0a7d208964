"""Maintenance jobs run as the django-q2 worker does: no index, the database only.

Every test here runs with AMEM_PROCESS_ROLE=worker and no store, so a job that
tried to open the index would fail with IndexUnavailable. Notes are rows with
hand-placed vectors (as in tests/engine/retrieval), never indexed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

import numpy as np
import pytest
from django.utils import timezone

from engine import runtime
from engine.config import get_config
from engine.index.embeddings import to_bytes
from engine.text import content_hash
from memories.models import Agent, Note


@pytest.fixture(autouse=True)
def as_worker(settings) -> Iterator[None]:
    """The worker's view of the world: the index may not be opened, the LLM is offline unless asked."""
    settings.AMEM_PROCESS_ROLE = "worker"
    settings.AMEM_LLM_ENV = {"AMEM_LLM_PROVIDER": "none"}
    settings.AMEM = {**settings.AMEM, "idle_seconds": 0}
    get_config.cache_clear()
    runtime.reset_llm()
    old = runtime.set_store(None)
    assert not runtime.index_available()
    yield
    runtime.set_store(old)
    runtime.reset_llm()
    get_config.cache_clear()


@pytest.fixture
def config(settings) -> Callable[..., None]:
    """Override EngineConfig values for one test."""

    def override(**values: object) -> None:
        settings.AMEM = {**settings.AMEM, **values}
        get_config.cache_clear()

    return override


def axis(i: int) -> np.ndarray:
    v = np.zeros(runtime.embedder().dimension, dtype=np.float32)
    v[i] = 1.0
    return v


def near(base: int, cosine: float, other: int) -> np.ndarray:
    """A unit vector whose cosine with ``axis(base)`` is ``cosine``, leaning towards ``axis(other)``."""
    return (cosine * axis(base) + math.sqrt(max(0.0, 1 - cosine * cosine)) * axis(other)).astype(np.float32)


def put(agent: Agent, content: str, vector: np.ndarray | None = None, **fields) -> Note:
    """A note row of ``agent`` with this exact stored vector; not indexed (the worker cannot)."""
    values = {"agent_id": agent.pk, "owner": agent.pk, "readers": [agent.pk], "writers": [agent.pk]}
    values.update(fields)
    return Note.objects.create(
        content=content,
        content_hash=content_hash(content),
        embedding=to_bytes(vector if vector is not None else axis(300)),
        embedding_model=runtime.embedder().model_name,
        index_dirty=False,
        revision=1,
        **values,
    )


def wrote(agent: Agent, when: datetime | None = None) -> None:
    """Record a write of ``agent`` (what every write path does)."""
    Agent.objects.filter(pk=agent.pk).update(last_write_at=when or timezone.now())
    agent.refresh_from_db()


class Clock:
    """A fake clock for the idle gate: ``sleep`` advances ``now`` and remembers the pauses."""

    def __init__(self) -> None:
        self.t = timezone.now()
        self.slept: list[float] = []
        self.on_sleep: Callable[[], None] | None = None

    def now(self) -> datetime:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += timedelta(seconds=seconds)
        if self.on_sleep is not None:
            self.on_sleep()


@pytest.fixture
def clock() -> Clock:
    return Clock()
