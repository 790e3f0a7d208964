"""Restart after a crash: how long from starting gunicorn again after ``kill -9`` until the server answers.

usage: .venv/bin/python -m bench restart --data-dir DIR [--rounds 3] [--port N]

DIR is a store ``python -m bench scale --sizes 10000 --data-dir DIR`` filled (SQLite + embedded
index). Each round starts the server as ``make run`` does (``gunicorn -c gunicorn.conf.py``),
times until ``GET /healthz`` answers 200 and until an authenticated search answers, then kills
master and worker with SIGKILL: the next round is a restart after a crash. The first round is a
start after whatever came before; the rounds after it are the measurement. Prints ``uptime``
beside every round: on a shared 2-core machine the load decides most of the time.
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
    args = parser.parse_args()
    data = Path(args.data_dir).resolve()
    port = args.port or free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AMEM_", "DJANGO_", "DATABASE_URL"))},
        "DJANGO_SETTINGS_MODULE": "amem_site.settings",
        "AMEM_DATA_DIR": str(data),
        "DATABASE_URL": f"sqlite:///{data / 'bench.sqlite3'}",
        "AMEM_BIND": f"127.0.0.1:{port}",
        "AMEM_LLM_PROVIDER": "none",
        "AMEM_ACCESS_LOG": "",
    }
    key = agent_key(env)
    base = f"http://127.0.0.1:{port}"
    print("| round | until /healthz 200 s | until a search answers s | uptime |")
    print("| ---: | ---: | ---: | --- |")
    with (data / "restart-bench.log").open("ab") as log:
        for round_ in range(1, args.rounds + 1):
            started = time.monotonic()
            server = subprocess.Popen(
                [str(GUNICORN), "-c", "gunicorn.conf.py", "amem_site.wsgi"], cwd=ROOT, env=env, stdout=log, stderr=log
            )
            while status(f"{base}/healthz") != 200:
                if server.poll() is not None:
                    raise SystemExit(f"the server exited ({server.returncode}); see {data / 'restart-bench.log'}")
                time.sleep(0.1)
            healthy = time.monotonic() - started
            assert status(f"{base}/api/v1/memories/search", {"query": "billing service"}, key) == 200
            answered = time.monotonic() - started
            load = subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip()
            print(f"| {round_} | {healthy:.1f} | {answered:.1f} | {load} |", flush=True)
            time.sleep(2)
            children = subprocess.run(
                ["pgrep", "-P", str(server.pid)], check=False, capture_output=True, text=True
            ).stdout.split()
            for pid in [server.pid, *map(int, children)]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            server.wait()
