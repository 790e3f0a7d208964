"""kill -9 of the server during a write burst on PostgreSQL.

Four clients write through the full pipeline; the server (master and worker) is SIGKILLed
mid-burst and started again. Every write that was acknowledged (201) must be there and found
by search; nothing may be half-written: each note has its creation event, and the index holds
exactly the database's active notes once the restarted server has caught up (the outbox).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from tests.live.conftest import postgres_suite_only, start_server
from testsupport.texts import unrelated_words

pytestmark = [pytest.mark.slow, postgres_suite_only]

CLIENTS = 4
ACKS_BEFORE_KILL = 40


@pytest.fixture
def pg_server(tmp_path_factory):
    live = start_server(tmp_path_factory, "postgres")
    yield live
    live.drop()


def test_every_acknowledged_write_survives_a_kill_9_and_nothing_is_half_written(pg_server):
    server = pg_server
    acknowledged: dict[str, str] = {}  # token -> note id
    lock = threading.Lock()
    stop = threading.Event()

    def client(n: int) -> None:
        i = 0
        while not stop.is_set():
            token = f"kq{n}x{i:04d}k"
            try:
                answer = server.call(
                    "POST",
                    "/api/v1/memories",
                    {"text": f"Entry {token} about {unrelated_words(n * 10_000 + i, 8)}."},
                    timeout=30,
                )
            except OSError:
                return  # the server is gone: this write was never acknowledged
            if answer.status == 201:
                with lock:
                    acknowledged[token] = answer.body["id"]
            i += 1

    with ThreadPoolExecutor(CLIENTS) as pool:
        futures = [pool.submit(client, n) for n in range(CLIENTS)]
        deadline = time.monotonic() + 300
        while len(acknowledged) < ACKS_BEFORE_KILL and time.monotonic() < deadline:
            time.sleep(0.05)
        server.kill9()  # writes are in flight right now
        stop.set()
        for f in futures:
            f.result()
    assert len(acknowledged) >= ACKS_BEFORE_KILL

    server.start()
    server.wait_indexed()  # the restarted server's drainer indexes what the killed one had not
    for token, note_id in acknowledged.items():
        got = server.call("GET", f"/api/v1/memories/{note_id}")
        assert got.status == 200 and token in got.body["content"], (token, got.body)
        query = got.body["content"]  # its own words: found first by both legs, whatever the heat of others
        hits = server.call("POST", "/api/v1/memories/search", {"query": query, "limit": 5}).body["results"]
        assert note_id in [h["id"] for h in hits], token

    with psycopg.connect(server.database_url) as conn:
        notes = conn.execute("SELECT count(*) FROM memories_note WHERE is_active").fetchone()[0]
        orphans = conn.execute(
            "SELECT count(*) FROM memories_note n WHERE NOT EXISTS "
            "(SELECT 1 FROM memories_noteevent e WHERE e.note_id = n.id AND e.action = 'create')"
        ).fetchone()[0]
        unembedded = conn.execute("SELECT count(*) FROM memories_note WHERE embedding IS NULL").fetchone()[0]
    assert orphans == 0 and unembedded == 0
    assert notes >= len(acknowledged)  # writes committed but not yet answered may be there too
    assert server.call("GET", "/api/v1/memories/count").body["count"] == notes
