"""Races under a real server (gunicorn, 8 threads) on SQLite and PostgreSQL: clients released
together by a barrier, the outcome the same as one after another.

- 8 contradicting facts at once ("Sam lives_in TownN") leave exactly one current fact; so do
  8 episodic writes that each say where SamX moved.
- 8 identical writes of a text close to an existing note store the text in one note (the
  sequential outcome: the first folds it in, the others find it there).
- 16 threads of 8 agents searching the same shared notes (each search bumps the heat of
  what it returns) get no 5xx: the bumps never wait on each other, so they cannot deadlock.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from testsupport.live_server import LiveServer
from testsupport.texts import unrelated_words

pytestmark = pytest.mark.slow

WRITERS = 8
# The suite runs the search flood briefly; the 60 s run of docs/benchmarks.md sets it by hand.
FLOOD_S = float(os.environ.get("AMEM_TEST_FLOOD_SECONDS", "10"))


def together(count: int, call) -> list:
    """``call(i)`` in ``count`` threads, all released at once by a barrier."""
    barrier = threading.Barrier(count)

    def run(i: int):
        barrier.wait()
        return call(i)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


def current(server: LiveServer, entity: str, relation: str) -> list[dict]:
    answer = server.call("GET", f"/api/v1/facts?entity={entity}")
    assert answer.status == 200, answer.body
    return [f for f in answer.body["facts"] if f["relation"] == relation and f["subject"] == entity]


def test_eight_contradicting_facts_at_once_leave_exactly_one_current(server):
    first = server.call("POST", "/api/v1/facts", {"subject": "Sam", "relation": "lives_in", "object": "Berlin"})
    assert first.status == 201, first.body
    answers = together(
        WRITERS,
        lambda i: server.call(
            "POST", "/api/v1/facts", {"subject": "Sam", "relation": "lives_in", "object": f"Town{i}"}
        ),
    )
    assert [a.status for a in answers] == [201] * WRITERS, [a.body for a in answers]
    now = current(server, "Sam", "lives_in")
    assert len(now) == 1, now
    assert now[0]["object"] in {f"Town{i}" for i in range(WRITERS)}


def test_eight_episodic_moves_at_once_leave_exactly_one_current_fact(server):
    answers = together(
        WRITERS,
        lambda i: server.call("POST", "/api/v1/memories/episodic", {"text": f"SamX: I moved to Porto{i} last week."}),
    )
    assert [a.status for a in answers] == [201] * WRITERS, [a.body for a in answers]
    now = current(server, "SamX", "lives_in")
    assert len(now) == 1, now


def test_eight_identical_writes_near_an_existing_note_store_the_text_once(server):
    for round_no in range(3):
        base = f"Soldering a guitar pedal round {round_no}: {unrelated_words(7_000 + round_no, 6)}"
        near = server.call("POST", "/api/v1/memories", {"text": f"{base} with code rcAAA{round_no}."})
        assert near.status == 201, near.body
        text = f"{base} with code rcBBB{round_no}."
        answers = together(WRITERS, lambda _, t=text: server.call("POST", "/api/v1/memories", {"text": t}))
        assert [a.status for a in answers] == [201] * WRITERS, [a.body for a in answers]
        rows = server.sql(f"SELECT id FROM memories_note WHERE is_active AND content LIKE '%rcBBB{round_no}.%'")
        holders = {str(row[0]).replace("-", "") for row in rows}
        outcomes = sorted(a.body["outcome"] for a in answers)
        assert len(holders) == 1, f"round {round_no}: the text is in {len(holders)} notes ({outcomes})"
        assert {a.body["id"].replace("-", "") for a in answers} == holders, outcomes


def test_sixteen_threads_of_eight_agents_searching_shared_notes_get_no_server_error(server):
    keys = server.create_agents([f"searcher{i}" for i in range(8)])
    for i in range(40):
        text = f"Shared harbour log {i}: {unrelated_words(9_000 + i, 8)} near the harbour crane."
        answer = server.call("POST", "/api/v1/memories", {"text": text, "scope": "shared"})
        assert answer.status == 201, answer.body
    server.wait_indexed()
    queries = ["harbour crane", "shared harbour log", "crane near the harbour", "harbour"]
    end = time.monotonic() + FLOOD_S

    def client(i: int) -> list[int]:
        statuses, n = [], 0
        while time.monotonic() < end:
            body = {"query": queries[(i + n) % len(queries)], "limit": 10}
            statuses.append(server.call("POST", "/api/v1/memories/search", body, key=keys[i % 8]).status)
            n += 1
        return statuses

    statuses = [s for batch in together(16, client) for s in batch]
    assert len(statuses) >= 16
    assert sorted(set(statuses)) == [200], {s: statuses.count(s) for s in set(statuses)}


@pytest.mark.parametrize(
    "path, headers, status",
    [
        ("/api/v1/memories?q=" + "x" * 5000, {}, 414),  # over gunicorn's request-line limit
        ("/api/v1/memories", {"X-Long": "y" * 9000}, 431),  # over its header-field limit
    ],
)
def test_gunicorns_own_refusals_are_json(server, path, headers, status):
    # Not a race: it rides on this module's servers. gunicorn answers these before Django runs.
    answer = server.call("GET", path, headers=headers)
    assert answer.status == status
    assert answer.headers["Content-Type"] == "application/json"
    assert isinstance(answer.body, dict) and answer.body["detail"]
