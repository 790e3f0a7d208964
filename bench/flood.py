"""Flood: one agent posts long conversations while another agent searches; how slow does it get?

Run by hand (docs/benchmarks.md, "Flood", has the figures):

    nice .venv/bin/python -m bench flood                        # PostgreSQL, 8 × 1,000 turns
    nice .venv/bin/python -m bench flood --backend sqlite --conversations 4

It starts its own server (testsupport/live_server.py: gunicorn with gunicorn.conf.py on a free
127.0.0.1 port, a fresh database and data dir, the offline LLM), gives a "reader" agent
--notes notes, then measures the reader's searches (one client, back to back):

1. idle, for --idle-seconds;
2. while a "flooder" agent sends --conversations conversations of --turns turns at once and,
   like a well-behaved client, sends each refused one (429/503) again after Retry-After,
   until every conversation is stored.

Reports p50/p95/max of the reader's searches in both phases and their ratio, the flooder's
answers by status, and any 5xx. Exits 1 on a 5xx or when flood p95 > 2 × idle p95.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.load import percentile
from testsupport.live_server import LiveServer, postgres_available
from testsupport.texts import unrelated_words

QUERIES = ["reader note about the harbour", "copper kettle", "violin lessons on sunday", "glacier walk"]


def searches_until(server: LiveServer, key: str, stop: threading.Event, statuses: Counter) -> list[float]:
    latencies, n = [], 0
    while not stop.is_set():
        started = time.perf_counter()
        answer = server.call("POST", "/api/v1/memories/search", {"query": QUERIES[n % len(QUERIES)]}, key=key)
        latencies.append(time.perf_counter() - started)
        statuses[answer.status] += 1
        n += 1
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=["postgres", "sqlite"], default="postgres")
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--idle-seconds", type=float, default=20)
    parser.add_argument("--server-env", nargs="*", default=[], help="KEY=VALUE settings for the server (A/B)")
    args = parser.parse_args()
    if args.backend == "postgres" and not postgres_available():
        print("PostgreSQL is not reachable", file=sys.stderr)
        return 2

    server = LiveServer(
        Path(tempfile.mkdtemp(prefix="amem-flood-")),
        backend=args.backend,
        env_extra=dict(item.split("=", 1) for item in args.server_env),
    )
    try:
        server.prepare("flooder").start()
        (reader,) = server.create_agents(["reader"])
        turns = [
            {"text": f"Reader note {i}: {unrelated_words(i, 8)}.", "session": f"r{i // 50}"} for i in range(args.notes)
        ]
        for start in range(0, len(turns), 50):
            assert (
                server.call("POST", "/api/v1/conversations", {"turns": turns[start : start + 50]}, key=reader).status
                == 201
            )
        server.wait_indexed()

        reader_statuses: Counter = Counter()
        stop = threading.Event()
        timer = threading.Timer(args.idle_seconds, stop.set)
        timer.start()
        idle = searches_until(server, reader, stop, reader_statuses)

        bodies = [
            {
                "turns": [
                    {"text": f"Flood {n} turn {i}: {unrelated_words(n * 100_000 + i, 5)}.", "session": f"f{n}"}
                    for i in range(args.turns)
                ]
            }
            for n in range(args.conversations)
        ]
        flooder: Counter = Counter()
        failures: Counter = Counter()  # the detail of each 5xx the flooder got
        lock = threading.Lock()

        def send(n: int) -> None:
            while True:
                answer = server.call("POST", "/api/v1/conversations", bodies[n], timeout=900)
                with lock:
                    flooder[answer.status] += 1
                    if answer.status >= 500:
                        failures[str(answer.body)[:200]] += 1
                if answer.status not in (429, 503):
                    return
                time.sleep(float(answer.headers.get("Retry-After", "1")))

        stop = threading.Event()
        flood_started = time.monotonic()
        with ThreadPoolExecutor(args.conversations + 1) as pool:
            busy = pool.submit(searches_until, server, reader, stop, reader_statuses)
            list(pool.map(send, range(args.conversations)))
            flood_seconds = time.monotonic() - flood_started
            stop.set()
            flooded = busy.result()
        stored = server.sql("SELECT count(*) FROM memories_note WHERE content LIKE 'Flood %'")[0][0]
    finally:
        server.drop()

    idle_p95, flood_p95 = percentile(idle, 0.95), percentile(flooded, 0.95)
    errors = sum(c for s, c in (reader_statuses + flooder).items() if s >= 500)
    report = {
        "backend": args.backend,
        "server_env": args.server_env,
        "load": os.getloadavg(),
        "idle": {"searches": len(idle), "p50_ms": 1000 * percentile(idle, 0.5), "p95_ms": 1000 * idle_p95},
        "flood": {
            "searches": len(flooded),
            "p50_ms": 1000 * percentile(flooded, 0.5),
            "p95_ms": 1000 * flood_p95,
            "max_ms": 1000 * max(flooded, default=0.0),
            "seconds": round(flood_seconds, 1),
        },
        "p95_ratio": flood_p95 / idle_p95,
        "reader_statuses": dict(reader_statuses),
        "flooder_statuses": dict(flooder),
        "turns_stored": stored,
        "turns_sent": args.conversations * args.turns,
        "server_errors": errors,
        "server_error_details": dict(failures),
    }
    print(json.dumps(report, indent=2, default=str))
    return 1 if errors or flood_p95 > 2 * idle_p95 else 0
