"""Start and restart: how long from starting gunicorn until the server answers and takes writes.

usage: .venv/bin/python -m bench restart --data-dir DIR [--database-url URL] [--rounds 3]
       [--writes 8] [--cold] [--port N]

DIR is a store ``python -m bench scale --sizes 10000 --data-dir DIR`` filled (SQLite + embedded
index; with ``--database-url`` the same command fills PostgreSQL, and this one must be given the
same URL). Each round starts the server as ``make run`` does (``gunicorn -c gunicorn.conf.py``),
waits until ``GET /healthz`` answers 200 (what a client is told to wait for), then at once sends
``--writes`` writes (``POST /api/v1/memories``) together, as agents do right after a start, and
an authenticated search; then kills master and worker with SIGKILL, so the next round is a
restart after a crash. Per round: seconds from start until /healthz 200, until the first write is
acknowledged (201), until every write has answered, the writes' statuses, and ``uptime``.
``--cold`` drops the OS page cache before each start (root only): a start after a reboot.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def status(url: str, body: dict | None = None, key: str = "") -> int:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if body else "GET")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


def first_writes(base: str, key: str, count: int, round_: int, started: float) -> tuple[list[int], list[float]]:
    """``count`` writes sent together; their statuses and the seconds since ``started`` each answered."""

    def one(i: int) -> tuple[int, float]:
        body = {"text": f"Restart round {round_} write {i}: the harbour ferry leaves at {7 + i} tomorrow."}
        code = status(f"{base}/api/v1/memories", body, key)
        return code, time.monotonic() - started

    with ThreadPoolExecutor(count) as pool:
        answers = list(pool.map(one, range(count)))
    return [code for code, _ in answers], [at for _, at in answers]


def drop_page_cache() -> None:
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def agent_key(env: dict) -> str:
    script = (
        "from memories.models import Agent, ApiKey\n"
        "print(ApiKey.issue(Agent.objects.order_by('pk').first(), name='bench restart')[1])\n"
    )
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return next(w for w in out.stdout.split() if w.startswith("amem_"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, help="a store bench scale --data-dir filled")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--database-url", default="", help="the PostgreSQL store bench scale filled (default: DIR's SQLite)"
    )
    parser.add_argument("--writes", type=int, default=8, help="writes sent together once /healthz says 200")
    parser.add_argument("--cold", action="store_true", help="drop the OS page cache before each start (root)")
    args = parser.parse_args()
    data = Path(args.data_dir).resolve()
    port = args.port or free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AMEM_", "DJANGO_", "DATABASE_URL"))},
        "DJANGO_SETTINGS_MODULE": "amem_site.settings",
        "AMEM_DATA_DIR": str(data),
        "DATABASE_URL": args.database_url or f"sqlite:///{data / 'bench.sqlite3'}",
        "AMEM_BIND": f"127.0.0.1:{port}",
        "AMEM_LLM_PROVIDER": "none",
        "AMEM_ACCESS_LOG": "",
    }
    key = agent_key(env)
    base = f"http://127.0.0.1:{port}"
    print(
        f"| round | until /healthz 200 s | until the first write 201 s | until all {args.writes} writes answered s "
        "| write statuses | uptime |"
    )
    print("| ---: | ---: | ---: | ---: | --- | --- |")
    totals: Counter[int] = Counter()
    with (data / "restart-bench.log").open("ab") as log:
        for round_ in range(1, args.rounds + 1):
            if args.cold:
                drop_page_cache()
            started = time.monotonic()
            server = subprocess.Popen(
                [str(GUNICORN), "-c", "gunicorn.conf.py", "amem_site.wsgi"], cwd=ROOT, env=env, stdout=log, stderr=log
            )
            while status(f"{base}/healthz") != 200:
                if server.poll() is not None:
                    raise SystemExit(f"the server exited ({server.returncode}); see {data / 'restart-bench.log'}")
                time.sleep(0.1)
            healthy = time.monotonic() - started
            codes, times = first_writes(base, key, args.writes, round_, started)
            totals.update(codes)
            acknowledged = [at for code, at in zip(codes, times, strict=True) if code == 201]
            first = f"{min(acknowledged):.1f}" if acknowledged else "none"
            assert status(f"{base}/api/v1/memories/search", {"query": "harbour ferry"}, key) == 200
            load = subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip()
            print(f"| {round_} | {healthy:.1f} | {first} | {max(times):.1f} | {codes} | {load} |", flush=True)
            time.sleep(2)
            children = subprocess.run(
                ["pgrep", "-P", str(server.pid)], check=False, capture_output=True, text=True
            ).stdout.split()
            for pid in [server.pid, *map(int, children)]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            server.wait()
    print(f"\nwrite statuses over {args.rounds} rounds: {dict(sorted(totals.items()))}")
