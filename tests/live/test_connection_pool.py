"""Bounded PostgreSQL connections: more clients than pooled connections, 0 errors,
and the server never holds more connections than AMEM_DB_POOL_SIZE (pg_stat_activity)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.load import ConnectionSampler
from tests.live.conftest import postgres_suite_only, start_server
from testsupport.texts import unrelated_words

pytestmark = [pytest.mark.slow, postgres_suite_only]

POOL, THREADS, CLIENTS, SECONDS = 3, 8, 12, 8


def test_twelve_clients_through_a_pool_of_three_connections(tmp_path_factory):
    server = start_server(tmp_path_factory, "postgres", threads=THREADS, pool_size=POOL)
    try:
        sampler = ConnectionSampler(server.database)
        sampler.start()
        end = time.monotonic() + SECONDS

        def client(n: int) -> list[int]:
            statuses, i = [], 0
            while time.monotonic() < end:
                if i % 3:
                    answer = server.call("POST", "/api/v1/memories/search", {"query": "kettle harbor"})
                else:
                    answer = server.call(
                        "POST", "/api/v1/memories", {"text": f"Pool {n}-{i}: {unrelated_words(n * 1000 + i, 8)}."}
                    )
                statuses.append(answer.status)
                i += 1
            return statuses

        with ThreadPoolExecutor(CLIENTS) as pool:
            statuses = [s for batch in pool.map(client, range(CLIENTS)) for s in batch]
        sampler.done.set()
        sampler.join()
    finally:
        server.drop()
    assert len(statuses) > CLIENTS
    assert sorted(set(statuses)) in ([200, 201], [200], [201])
    assert 1 <= max(sampler.samples) <= POOL
