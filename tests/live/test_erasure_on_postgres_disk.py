"""Erasure on PostgreSQL's disk, tested the way it was found: every file of the cluster's data
directory (tables, indexes, the write-ahead log, the statistics) is read byte by byte after the
documented purge, and none holds a purged token; nor does the access log.

A note purged over the API, a subject purged over the API (its notes, facts and core blocks), a
whole agent erased with ``manage.py amem_erase`` while the server runs. The cluster is shared with
other tests: this one uses its own database, and turns ``wal_recycle`` off for its run as
docs/deploy.md asks of an installation that erases (put back afterwards).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live.conftest import postgres_suite_only
from testsupport.live_server import PG_ADMIN_URL, LiveServer, postgres_available

pytestmark = [pytest.mark.slow, postgres_suite_only]


def _admin(sql: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        cursor = conn.execute(sql)
        return cursor.fetchall() if cursor.description else []


def data_directory() -> Path:
    return Path(_admin("SHOW data_directory")[0][0])


def files_holding(root: Path, needles: list[str]) -> dict[str, list[str]]:
    """Each needle → the files under ``root`` that hold it (files that vanish meanwhile are skipped)."""
    found: dict[str, list[str]] = {n: [] for n in needles}
    for path in root.rglob("*"):
        try:
            data = path.read_bytes() if path.is_file() else b""
        except (FileNotFoundError, PermissionError):
            continue
        for needle in needles:
            if needle.encode() in data:
                found[needle].append(str(path.relative_to(root)))
    return {n: files for n, files in found.items() if files}


@pytest.fixture
def wal_recycle_off() -> Iterator[None]:
    before = _admin("SHOW wal_recycle")[0][0]
    _admin("ALTER SYSTEM SET wal_recycle = off")
    _admin("SELECT pg_reload_conf()")
    yield
    _admin("ALTER SYSTEM RESET wal_recycle" if before == "on" else f"ALTER SYSTEM SET wal_recycle = {before}")
    _admin("SELECT pg_reload_conf()")


@pytest.fixture
def pg_server(tmp_path_factory, wal_recycle_off) -> Iterator[tuple[LiveServer, Path]]:
    if not postgres_available():
        pytest.skip("PostgreSQL is not reachable at AMEM_TEST_PG_ADMIN_URL")
    if not data_directory().is_dir():
        pytest.skip("the cluster's data directory is not readable here")
    log = tmp_path_factory.mktemp("pg-erasure") / "access.log"
    server = LiveServer(
        tmp_path_factory.mktemp("live-pg-erasure"), backend="postgres", env_extra={"AMEM_ACCESS_LOG": str(log)}
    )
    server.prepare().start()
    yield server, log
    server.drop()


def test_after_the_purge_no_file_of_the_cluster_holds_a_purged_token(pg_server):
    server, access_log = pg_server
    tag = uuid.uuid4().hex[:10]
    token = {
        k: f"zq{k}{tag}"
        for k in ("note", "person", "subjtext", "block", "factobj", "agentname", "agenttext", "agentblock")
    }
    agent = f"eve{tag}"
    out = server.manage("amem_agent", "create", agent, "--name", token["agentname"])
    eve = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("api key: "))

    def call(method: str, path: str, body=None, key: str = "") -> dict:
        answer = server.call(method, f"/api/v1{path}", body, key=key)
        assert answer.status in (200, 201), (path, answer.body)
        return answer.body

    note = call("POST", "/memories", {"text": f"My locker code is {token['note']} at the city gym"})["id"]
    person = token["person"]
    call("POST", "/memories", {"text": f"{person} said the door code is {token['subjtext']}", "subjects": [person]})
    call("POST", "/core/people/replace", {"path": "door", "value": token["block"], "subject": person})
    call("POST", "/facts", {"subject": person, "relation": "owns", "object": token["factobj"]})
    call("POST", "/memories", {"text": f"The launch plan is {token['agenttext']}, keep it quiet"}, key=eve)
    call("POST", "/core/plans/replace", {"path": "launch", "value": token["agentblock"]}, key=eve)
    call("POST", "/memories", {"text": "The weekly team lunch is on Thursdays at noon"})  # stays
    server.wait_indexed()
    _admin("CHECKPOINT")
    root = data_directory()
    before = files_holding(root, list(token.values()))
    assert set(before) == set(token.values()), before  # all on disk first: the check below can fail

    call("DELETE", f"/memories/{note}?purge=true")
    call("DELETE", f"/subjects/{person}?purge=true")
    server.manage("amem_erase", "--agent", agent, "--yes")
    server.wait_indexed()

    assert files_holding(root, list(token.values())) == {}
    server.stop()  # flushes the access log
    logged = access_log.read_text()
    assert "/api/v1/subjects/~?purge=true" in logged
    assert not [t for t in token.values() if t in logged]
    assert "erasure: rewrote" in server.read_log()
