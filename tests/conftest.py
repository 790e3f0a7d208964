"""Shared fixtures: a fresh index per test (both backends where asked), agents, notes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator

import pytest
from django.db import transaction

from engine import runtime
from engine.index.embeddings import DEFAULT_MODEL
from engine.index.store import ClientStore, EdgeStore
from engine.index_sync import outbox
from memories.models import Agent
from testsupport.fake_runtime import point_llm_at
from testsupport.llm_server import FakeLLMServer


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        item.stash[_FAILED] = True
    return report


_FAILED = pytest.StashKey[bool]()


@pytest.fixture(autouse=True)
def _tmp_path_removed_when_passed(request) -> Iterator[None]:
    """A passed test's ``tmp_path`` goes at once, not at the end of the run.

    Each qdrant-edge index preallocates two 32 MB WAL segments; with ``TMPDIR`` on
    ``/dev/shm`` (the Makefile) a thousand kept index folders would fill the machine's RAM.
    A failed test's folder stays for a look.
    """
    if "tmp_path" not in request.fixturenames:
        yield
        return
    path = request.getfixturevalue("tmp_path")  # set up now, so it is torn down after this
    yield
    if not request.node.stash.get(_FAILED, False):
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def _embedding_model(request) -> Iterator[None]:
    """Tests marked ``realmodel`` embed with MiniLM; the rest with the test settings' model (test-hash).

    Autouse, so it runs before the store fixtures that size the index from the embedder.
    """
    if request.node.get_closest_marker("realmodel") is None:
        yield
        return
    runtime.use_model(DEFAULT_MODEL)
    runtime.reset_llm()  # the offline rules embed through the runtime's embedder
    yield
    runtime.use_model(None)
    runtime.reset_llm()


@pytest.fixture(autouse=True)
def _after_commit_hooks_run_at_once(request, monkeypatch) -> None:
    """Run ``transaction.on_commit`` hooks at once, as the commit would.

    pytest-django wraps each test in a transaction that never commits, so the write paths'
    after-commit index sync (registered last inside their transaction) would never fire and a
    test could not find what it just wrote. Tests that study the hook itself request
    ``django_capture_on_commit_callbacks`` and see the real behaviour. Dirty notes made any
    other way wait for the ``drain`` fixture, as they wait for the server's drainer.
    """
    if "django_capture_on_commit_callbacks" in request.fixturenames:
        return
    monkeypatch.setattr(transaction, "on_commit", lambda func, using=None, robust=False: func())


@pytest.fixture
def offline_llm(settings) -> Iterator[None]:
    """The runtime LLM on the offline rules (the default provider "none"), whatever the environment says."""
    settings.AMEM_LLM_ENV = {"AMEM_LLM_PROVIDER": "none"}
    runtime.reset_llm()
    yield
    runtime.reset_llm()


@pytest.fixture
def provider(settings) -> Iterator[FakeLLMServer]:
    """The runtime LLM pointed at a fake OpenAI-compatible server on 127.0.0.1 (replies "{}" by default)."""
    with FakeLLMServer() as server:
        server.always("{}")
        point_llm_at(settings, server)
        yield server
        runtime.reset_llm()


# The Redis the tests may use (.ci/run starts one); a test that needs it skips where none answers.
REDIS_URL = os.environ.get("AMEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def redis_client():
    """A client of the test Redis at ``REDIS_URL``, or a skip."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError:
        pytest.skip(f"Redis is not reachable at {REDIS_URL} (AMEM_TEST_REDIS_URL)")
    return client


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
def drain(db) -> Callable[[], None]:
    """Index every dirty note now, as the server's outbox drainer would (searches never index)."""

    def run() -> None:
        result = outbox.drain()
        assert not result.failed, result.error

    return run


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
