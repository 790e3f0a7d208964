"""Fixtures: a gunicorn server per test module and database backend (testsupport/live_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from testsupport.live_server import LiveServer, postgres_available

BACKENDS = ["sqlite", "postgres"]


def start_server(tmp_path_factory, backend: str, **options) -> LiveServer:
    if backend == "postgres" and not postgres_available():
        pytest.skip("PostgreSQL is not reachable at AMEM_TEST_PG_ADMIN_URL")
    server = LiveServer(tmp_path_factory.mktemp(f"live-{backend}"), backend=backend, **options)
    try:
        return server.prepare().start()
    except Exception:
        server.drop()
        raise


@pytest.fixture(scope="module", params=BACKENDS)
def server(request, tmp_path_factory) -> Iterator[LiveServer]:
    """A running server (8 threads) on SQLite, then on PostgreSQL, shared by the module's tests."""
    live = start_server(tmp_path_factory, request.param)
    yield live
    live.drop()
