"""One agent floods the server with long conversations while another agent searches.

Real gunicorn (8 threads) on the suite's database (SQLite or PostgreSQL): 8 conversations of 1,000 turns, sent at
once by one agent (a barrier releases them), while a second agent searches without pause.
The flooding agent gets its heavy slot for one conversation at a time; the others are
answered 429 with Retry-After (surfaces/heavy.py). Nobody gets a 5xx, and every conversation
is either stored whole or not at all. How fast the other agent's searches stay is measured
by hand (bench/flood.py, docs/benchmarks.md), never asserted here.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.live.conftest import BACKENDS, start_server
from testsupport.texts import unrelated_words

pytestmark = pytest.mark.slow

CONVERSATIONS, TURNS = 8, 1000


def conversation(n: int) -> dict:
    return {
        "turns": [
            {
                "text": f"Flood {n} turn {i}: {unrelated_words(n * 10_000 + i, 5)}.",
                "session": f"s{n}",
                "source": f"c{n}:{i}",
            }
            for i in range(TURNS)
        ]
    }


@pytest.fixture(scope="module", params=BACKENDS)
def flooded(request, tmp_path_factory):
    # The deadline is off here (its own test is tests/surfaces/api/test_fair_limits.py): on a shared,
    # oversubscribed machine one conversation's embedding can outlast 120 s, and its 503 would
    # be the deadline working, not the race this test looks for.
    live = start_server(tmp_path_factory, request.param, env_extra={"AMEM_HEAVY_DEADLINE": "3600"})
    yield live
    live.drop()


def test_long_conversations_of_one_agent_leave_no_5xx_and_are_stored_whole_or_not_at_all(flooded):
    server = flooded
    (other,) = server.create_agents(["reader"])
    for i in range(5):
        assert (
            server.call(
                "POST", "/api/v1/memories", {"text": f"Reader note {i}: {unrelated_words(i, 8)}."}, key=other
            ).status
            == 201
        )
    bodies = [conversation(n) for n in range(CONVERSATIONS)]
    barrier = threading.Barrier(CONVERSATIONS + 1)
    flooding = threading.Event()
    flooding.set()

    def post(n: int):
        barrier.wait()
        return server.call("POST", "/api/v1/conversations", bodies[n], timeout=600)

    def search() -> list[int]:
        barrier.wait()
        statuses = []
        while flooding.is_set() or not statuses:
            statuses.append(server.call("POST", "/api/v1/memories/search", {"query": "reader note"}, key=other).status)
            time.sleep(0.05)
        return statuses

    with ThreadPoolExecutor(CONVERSATIONS + 1) as pool:
        searches = pool.submit(search)
        answers = list(pool.map(post, range(CONVERSATIONS)))
        flooding.clear()
        search_statuses = searches.result()

    statuses = [a.status for a in answers]
    assert all(s < 500 for s in statuses + search_statuses), (statuses, set(search_statuses))
    assert set(statuses) <= {201, 429} and 201 in statuses, [a.body for a in answers if a.status != 201]
    assert all("Retry-After" in a.headers for a in answers if a.status == 429)
    assert set(search_statuses) == {200}
    for n, answer in enumerate(answers):
        stored = server.sql(f"SELECT count(*) FROM memories_note WHERE content LIKE 'Flood {n} turn %'")[0][0]
        assert stored == (TURNS if answer.status == 201 else 0), (n, answer.status, stored)
        if answer.status == 201:
            assert len(answer.body["ids"]) == TURNS
