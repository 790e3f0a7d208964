"""SIGTERM during a write burst: web and worker stop within 10 s and no acknowledged write is lost.

The server runs as `make serve` does (gunicorn + ``manage.py amem_worker`` under one shell, in a
process group of its own). Clients write while the stop is sent two ways: TERM to each process
(a service manager's main-process stop) and TERM to the whole process group (systemd's default,
and Ctrl-C's). Every process must be gone within 10 s; every write answered 201 must be in the
database, and the restarted server must index all of them.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import threading
import time

import pytest

from tests.live.conftest import start_server
from testsupport.live_server import ROOT, LiveServer

pytestmark = pytest.mark.slow

STOP_WITHIN = 10.0


def serve(server: LiveServer) -> subprocess.Popen:
    env = {**server.env(), "VENV": str(ROOT / ".venv")}
    return subprocess.Popen(
        ["make", "--no-print-directory", "serve", "HOST=127.0.0.1", f"PORT={server.port}"],
        cwd=ROOT,
        env=env,
        stdout=server.log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as under a service manager
    )


def group_members(pgid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.parametrize("how", ["each-process", "process-group"])
def test_sigterm_during_a_write_burst_stops_in_time_and_loses_nothing(tmp_path_factory, how):
    server = start_server(tmp_path_factory, "sqlite")
    server.stop()  # prepared by the fixture helper; run it the way `make serve` does instead
    server.log = open(server.data_dir / "server.log", "ab")  # noqa: SIM115 - closed below
    shell = serve(server)
    try:
        assert wait_until(lambda: _healthy(server), 180), server.read_log()
        assert wait_until(lambda: _named(shell.pid, "amem_worker"), 60), server.read_log()
        acknowledged: list[str] = []
        stop = threading.Event()
        sent_at: list[float] = []  # set when SIGTERM is sent

        def client(n: int) -> None:
            i = 0
            while not stop.is_set():
                try:
                    answer = server.call(
                        "POST", "/api/v1/memories/episodic", {"text": f"burst {n}-{i} of {how}"}, timeout=30
                    )
                except OSError:
                    # Refused after the stop: this client is done. Before it (a write slower than the
                    # timeout on a busy machine), the write was not acknowledged: try the next one.
                    # Returning here once left no client writing, and the burst never reached 20.
                    if stop.is_set() or sent_at:
                        return
                    time.sleep(0.2)
                    i += 1
                    continue
                if answer.status == 201:
                    acknowledged.append(answer.body["id"])
                i += 1

        threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        assert wait_until(lambda: len(acknowledged) >= 20, 120)
        sent = time.monotonic()
        sent_at.append(sent)
        if how == "process-group":
            os.killpg(shell.pid, signal.SIGTERM)
        else:
            # The gunicorn master and the worker's parent, found by parentage: the lowest pid once
            # picked a child after the machine's pids wrapped round, and the master lived on.
            for pid in [_eldest(shell.pid, "gunicorn.conf.py"), _eldest(shell.pid, "amem_worker")]:
                os.kill(pid, signal.SIGTERM)
        # make is this test's child: reaped here, or it would linger in the group as a zombie.
        stopped = wait_until(lambda: shell.poll() is not None and not group_members(shell.pid), 30)
        took = time.monotonic() - sent
        stop.set()
        for t in threads:
            t.join(60)
        assert stopped and took <= STOP_WITHIN, f"still running after {took:.1f} s: {_cmdlines(shell.pid)}"
        with sqlite3.connect(server.data_dir / "amem.sqlite3") as db:
            stored = {row[0].replace("-", "") for row in db.execute("SELECT id FROM memories_note")}
        lost = [i for i in acknowledged if i.replace("-", "") not in stored]
        assert lost == [], f"{len(lost)} of {len(acknowledged)} acknowledged writes lost"
        server.start()  # restarted: the outbox indexes whatever the stop left dirty
        server.wait_indexed()
    finally:
        for pid in group_members(shell.pid):
            os.kill(pid, signal.SIGKILL)
        server.drop()


def _healthy(server: LiveServer) -> bool:
    try:
        return server.call("GET", "/healthz", key=None, timeout=5).status == 200
    except OSError:
        return False


def _named(pgid: int, needle: str) -> list[int]:
    """Processes of the group whose command line holds ``needle``."""
    found = []
    for pid in group_members(pgid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmd and not cmd.startswith(("/bin/sh", "sh ", "make")):
            found.append(pid)
    return found


def _eldest(pgid: int, needle: str) -> int:
    """The process of the group holding ``needle`` whose parent does not: the one that forked the rest."""
    named = _named(pgid, needle)
    eldest = [pid for pid in named if _parent(pid) not in named]
    assert len(eldest) == 1, (needle, named, eldest)
    return eldest[0]


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])  # after "pid (comm)": state, ppid
    except OSError:
        return None


def _cmdlines(pgid: int) -> list[str]:
    found = []
    for pid in group_members(pgid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                found.append(f"{pid}: " + f.read().replace(b"\0", b" ").decode(errors="replace")[:120])
        except OSError:
            pass
    return found
