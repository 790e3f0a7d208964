"""Fixtures: a gunicorn server per test module on the suite's database (testsupport/live_server.py).

The live servers use the database kind the suite runs on: SQLite under ``make test``,
PostgreSQL under ``make test-postgres`` (DATABASE_URL). CI runs both suites, so every live
test meets both databases once, not twice in each suite.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from testsupport.live_server import LiveServer, postgres_available


def suite_backend() -> str:
    return "postgres" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"


BACKENDS = [suite_backend()]
# Tests of PostgreSQL alone (its pool, its sockets across forks) run in the PostgreSQL suite.
postgres_suite_only = pytest.mark.skipif(
    suite_backend() != "postgres", reason="PostgreSQL only: runs in make test-postgres"
)


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
    """A running server (8 threads) on the suite's database, shared by the module's tests."""
    live = start_server(tmp_path_factory, request.param)
    yield live
    live.drop()
