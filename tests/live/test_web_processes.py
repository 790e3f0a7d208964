"""Several web processes on the embedded index (AMEM_WEB_PROCESSES=2): one index process owns it.

The server is run as a user runs it (gunicorn.conf.py); what must hold: every process answers
from the same index (a note written through one is found through the other at once), an index
process that dies is started again and nothing written is lost, and a stop leaves nothing
running and the index whole for the next start.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.live.conftest import start_server, suite_backend

pytestmark = pytest.mark.slow


def children(master: int) -> dict[int, str]:
    out = subprocess.run(["pgrep", "-a", "-P", str(master)], capture_output=True, text=True).stdout
    return {int(line.split(" ", 1)[0]): line.split(" ", 1)[1] for line in out.splitlines()}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def found(server, text: str) -> bool:
    answer = server.call("POST", "/api/v1/memories/search", {"query": text, "limit": 3})
    assert answer.status == 200, answer.body
    return any(r["content"] == text for r in answer.body["results"])


def test_two_web_processes_answer_from_one_index_survive_its_crash_and_stop_clean(tmp_path_factory):
    server = start_server(tmp_path_factory, suite_backend(), env_extra={"AMEM_WEB_PROCESSES": "2"})
    try:
        assert server.process is not None
        # /healthz answers once the first worker is up: wait until both say they take writes.
        log = server.data_dir / "server.log"
        deadline = time.monotonic() + 120
        while log.read_text(errors="replace").count("amem: ready on") < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        kids = children(server.process.pid)
        index = [pid for pid, cmd in kids.items() if "engine.index.served" in cmd]
        workers = [pid for pid, cmd in kids.items() if "gunicorn" in cmd]
        assert len(index) == 1 and len(workers) == 2, kids
        socket_folder = Path(kids[index[0]].split()[-1]).parent
        # Commands find the server by its master, whichever worker wrote the record.
        assert json.loads((server.data_dir / "server.json").read_text())["pid"] == server.process.pid
        assert oct(socket_folder.stat().st_mode & 0o777) == "0o700"
        # Each process counts rate limits on its own without AMEM_CACHE_URL: said at start.
        assert "count rate limits each on their own" in server.read_log()

        # Each note written is found by the very next search, whichever process takes either.
        texts = [f"Locker {i} at the swimming pool holds a blue towel and goggles" for i in range(16)]

        def write_then_find(text: str) -> bool:
            assert server.call("POST", "/api/v1/memories", {"text": text}).status == 201
            return found(server, text)

        cpu_before = {pid: cpu_seconds(pid) for pid in workers}
        with ThreadPoolExecutor(8) as pool:
            assert all(pool.map(write_then_find, texts))
            assert all(pool.map(lambda t: found(server, t), texts * 4))
        # Both web processes did the work (the kernel spreads connections between them).
        assert all(cpu_seconds(pid) - cpu_before[pid] > 0.05 for pid in workers)

        # The index process dies: the master starts it again; meanwhile searches answer 503, not 500.
        os.kill(index[0], signal.SIGKILL)
        statuses = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            answer = server.call("POST", "/api/v1/memories/search", {"query": texts[3], "limit": 3})
            statuses.append(answer.status)
            if answer.status == 200:
                break
            time.sleep(0.2)
        assert statuses[-1] == 200 and set(statuses) <= {200, 503}, statuses
        assert all(found(server, t) for t in texts)  # what was written before the crash is all there
        assert "the index process" in server.read_log() and "starting it again" in server.read_log()
        restarted = [pid for pid, cmd in children(server.process.pid).items() if "engine.index.served" in cmd]
        assert len(restarted) == 1 and restarted != index

        # A stop leaves no process behind, and the next start opens the same index.
        assert server.call("POST", "/api/v1/memories", {"text": "The last note before the stop"}).status == 201
        server.stop()
        assert not any(Path(f"/proc/{pid}").exists() for pid in restarted)
        assert not socket_folder.exists()
        server.start()
        assert found(server, "The last note before the stop") and found(server, texts[0])
    finally:
        server.drop()
