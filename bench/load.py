"""Load test: N concurrent clients of mixed search/write/recall against gunicorn on PostgreSQL.

Run by hand (docs/benchmarks.md has the figures):

    .venv/bin/python -m bench load                           # 16 clients, 60 s, pool 8, 8 threads
    .venv/bin/python -m bench load --clients 4 --seconds 10  # quicker
    .venv/bin/python -m bench load --mix search=75,write=25  # the first round's mix
    .venv/bin/python -m bench load --server-env AMEM_THREADS=16   # a server setting, A/B

It starts its own server (testsupport/live_server.py: a fresh PostgreSQL database, or with
--backend sqlite the SQLite file `make run` uses, and a data dir,
gunicorn with gunicorn.conf.py on a free 127.0.0.1 port, the offline LLM), loads --seed
notes, then runs the clients for --seconds: each request is a search (--search-share) or a
request kind drawn by --mix: ``search`` (POST /memories/search), ``episodic`` (POST
/memories/episodic: an agent turn stored as it is), ``write`` (POST /memories: the full
pipeline) or ``recall`` (POST /recall: the agent's bundle, 1,000 tokens). Loopback only; bounded in time.
Meanwhile it samples pg_stat_activity for the server's database every 0.2 s.

Reports: requests, errors (any non-2xx or transport failure), req/s, p50/p95/max latency per
kind, the most connections the server held against AMEM_DB_POOL_SIZE, and the CPU time per
request of the serving processes (and of the index process among them) and of the database's backends (from /proc, Linux): on a shared
machine req/s follows the load, the CPU a request costs much less. Exits 1 on any
error or if the connections ever exceeded the pool.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from testsupport.live_server import PG_ADMIN_URL, LiveServer, postgres_available
from testsupport.texts import unrelated_words

QUERIES = ["anchor and kettle", "a glacier near the harbor", "violin lessons", "copper walnut", "the rocket launch"]


def _text(n: int, i: int) -> str:
    return f"Client {n} item {i}: {unrelated_words(n * 100_000 + i, 8)}."


# Each kind: its path and a body, from the client's random source, its number and a counter.
REQUESTS = {
    "search": lambda rng, n, i: ("/api/v1/memories/search", {"query": rng.choice(QUERIES), "limit": 5}),
    "episodic": lambda rng, n, i: ("/api/v1/memories/episodic", {"text": _text(n, i)}),
    "write": lambda rng, n, i: ("/api/v1/memories", {"text": _text(n, i)}),
    "recall": lambda rng, n, i: ("/api/v1/recall", {"query": rng.choice(QUERIES), "token_budget": 1000}),
}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class ConnectionSampler(threading.Thread):
    """The server's connections to its database (pg_stat_activity), sampled until stopped."""

    def __init__(self, database: str) -> None:
        super().__init__(daemon=True)
        self.database, self.done = database, threading.Event()
        self.samples: list[int] = []

    def run(self) -> None:
        import psycopg

        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            while not self.done.is_set():
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (self.database,)
                ).fetchone()
                assert row is not None  # count(*) answers one row, always
                self.samples.append(row[0])
                time.sleep(0.2)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (0 if it is gone or /proc is not there)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def backend_pids(database: str) -> list[int]:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (database,)).fetchall()
    return [row[0] for row in rows]


def serving_pids(master: int) -> list[int]:
    """gunicorn's workers and, with AMEM_WEB_PROCESSES above 1, the index process: the master's children."""
    children = subprocess.run(["pgrep", "-P", str(master)], check=False, capture_output=True, text=True).stdout.split()
    return [int(pid) for pid in children] or [master]


def is_index_process(pid: int) -> bool:
    try:
        return b"engine.index.served" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=8, help="gunicorn threads (AMEM_THREADS)")
    parser.add_argument("--pool", type=int, default=8, help="AMEM_DB_POOL_SIZE")
    parser.add_argument("--seed", type=int, default=300, help="notes stored before the run")
    parser.add_argument("--mix", default="search=70,episodic=20,recall=10", help="request kinds and their weights")
    parser.add_argument("--server-env", nargs="*", default=[], help="KEY=VALUE settings for the server")
    parser.add_argument(
        "--backend",
        choices=("postgres", "sqlite"),
        default="postgres",
        help="the server's database (sqlite: make run's)",
    )
    args = parser.parse_args()
    mix = {kind: float(weight) for kind, _, weight in (item.partition("=") for item in args.mix.split(","))}
    unknown = set(mix) - set(REQUESTS)
    if unknown:
        parser.error(f"--mix: unknown kind(s) {', '.join(sorted(unknown))}; known: {', '.join(REQUESTS)}")
    postgres = args.backend == "postgres"
    if postgres and not postgres_available():
        print(f"PostgreSQL is not reachable at {PG_ADMIN_URL}", file=sys.stderr)
        return 2

    server_env = dict(item.split("=", 1) for item in args.server_env)
    processes = int(server_env.get("AMEM_WEB_PROCESSES", "1"))
    server = LiveServer(
        Path(tempfile.mkdtemp(prefix="amem-load-")),
        backend=args.backend,
        threads=args.threads,
        pool_size=args.pool,
        env_extra=server_env,
    )
    try:
        server.prepare().start()
        turns = [{"text": f"Seed {i}: {unrelated_words(900_000 + i, 8)}."} for i in range(args.seed)]
        for start in range(0, len(turns), 100):
            assert server.call("POST", "/api/v1/conversations", {"turns": turns[start : start + 100]}).status == 201

        latencies: dict[str, list[float]] = {kind: [] for kind in mix}
        errors: list[str] = []
        lock = threading.Lock()
        sampler = ConnectionSampler(server.database)
        if postgres:
            sampler.start()
        assert server.process is not None
        serving = serving_pids(server.process.pid)
        backends = backend_pids(server.database) if postgres else []
        cpu_before = {pid: cpu_seconds(pid) for pid in [*serving, *backends]}
        end = time.monotonic() + args.seconds

        def client(n: int) -> None:
            rng = random.Random(n)
            i = 0
            while time.monotonic() < end:
                (kind,) = rng.choices(list(mix), weights=list(mix.values()))
                path, body = REQUESTS[kind](rng, n, i)
                i += 1
                began = time.perf_counter()
                try:
                    answer = server.call("POST", path, body, timeout=60)
                    ok, status = 200 <= answer.status < 300, answer.status
                except OSError as exc:
                    ok, status = False, repr(exc)
                took = time.perf_counter() - began
                with lock:
                    latencies[kind].append(took)
                    if not ok:
                        errors.append(f"{kind}: {status}")

        started = time.monotonic()
        with ThreadPoolExecutor(args.clients) as pool:
            list(pool.map(client, range(args.clients)))
        elapsed = time.monotonic() - started
        # Backends opened during the run count from 0; the sampler's own connection is another database.
        server_cpu = sum(cpu_seconds(pid) - cpu_before[pid] for pid in serving)
        index_cpu = sum(cpu_seconds(pid) - cpu_before[pid] for pid in serving if is_index_process(pid))
        backends = backend_pids(server.database) if postgres else []
        db_cpu = sum(cpu_seconds(pid) - cpu_before.get(pid, 0.0) for pid in backends)
        sampler.done.set()
        if postgres:
            sampler.join()

        total = sum(len(v) for v in latencies.values())
        report = {
            "clients": args.clients,
            "seconds": round(elapsed, 1),
            "threads": args.threads,
            "processes": processes,
            "pool": args.pool,
            "mix": mix,
            "server_env": args.server_env,
            "backend": args.backend,
            "load": [round(x, 2) for x in os.getloadavg()],
            "requests": total,
            "errors": len(errors),
            "req_per_s": round(total / elapsed, 1),
            "max_connections_seen": max(sampler.samples, default=0),
            "connection_samples": len(sampler.samples),
            "server_cpu_ms_per_request": round(1000 * server_cpu / max(total, 1), 2),
            "db_cpu_ms_per_request": round(1000 * db_cpu / max(total, 1), 2),
            # Of the server's: the index process's (AMEM_WEB_PROCESSES above 1), 0 otherwise.
            "index_cpu_ms_per_request": round(1000 * index_cpu / max(total, 1), 2),
        }
        for kind, values in latencies.items():
            report[kind] = {
                "n": len(values),
                "p50_ms": round(percentile(values, 0.50) * 1000, 1),
                "p95_ms": round(percentile(values, 0.95) * 1000, 1),
                "max_ms": round(max(values, default=float("nan")) * 1000, 1),
                "mean_ms": round(statistics.fmean(values) * 1000, 1) if values else None,
            }
        print(json.dumps(report, indent=2))
        if errors:
            print("first errors:", errors[:10], file=sys.stderr)
        # Each web process has its own pool.
        return 0 if not errors and report["max_connections_seen"] <= args.pool * processes else 1
    finally:
        server.drop()
