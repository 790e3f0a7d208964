"""The django-q2 cluster on PostgreSQL: no database connection is shared between its processes.

A real ``manage.py qcluster`` (sentinel, pusher, monitor, two workers replaced every two
tasks, so the sentinel forks new workers after it has used the database) runs every
maintenance schedule once a minute for about two minutes. Every second, each TCP socket to
PostgreSQL is traced (/proc) to the processes that hold it: a socket held by two processes
is a shared connection (the pusher reading the worker's replies). At the end, every task
succeeded and every job run is recorded as ok.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

from tests.live.conftest import postgres_suite_only
from testsupport.live_server import ROOT, LiveServer, postgres_available

pytestmark = [pytest.mark.slow, postgres_suite_only]

EVERY_MINUTE = "* * * * *"
RUN_S = 110  # django-q2 looks at its schedules every 30 s: about three rounds of every job
MIN_TASKS = 6
PG_PORT_HEX = f"{5432:04X}"


def process_tree(root: int) -> list[int]:
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue
        todo.extend(int(c) for c in children)
    return pids


def postgres_sockets() -> set[str]:
    """Inodes of this machine's TCP sockets connected to port 5432."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[2].rsplit(":", 1)[1] == PG_PORT_HEX:
                found.add(fields[9])
    return found


def shared_connections(root: int) -> dict[str, list[int]]:
    """PostgreSQL sockets held by more than one process of the tree: inode → pids."""
    to_postgres = postgres_sockets()
    holders: dict[str, set[int]] = defaultdict(set)
    for pid in process_tree(root):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inode = target[8:-1]
                if inode in to_postgres:
                    holders[inode].add(pid)
    return {inode: sorted(pids) for inode, pids in holders.items() if len(pids) > 1}


def query(live: LiveServer, sql: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(live.database_url) as conn:
        return conn.execute(sql).fetchall()


def test_the_cluster_processes_never_share_a_connection_and_every_run_succeeds(tmp_path):
    if not postgres_available():
        pytest.skip("PostgreSQL is not reachable at AMEM_TEST_PG_ADMIN_URL")
    extra = {
        "AMEM_QUEUE_NAME": f"amem-test-{uuid.uuid4().hex[:8]}",
        "AMEM_PROCESS_ROLE": "worker",
        "AMEM_WORKERS": "2",
        "AMEM_WORKER_RECYCLE": "2",
        "AMEM_IDLE_SECONDS": "0",
        **{f"AMEM_{job}_CRON": EVERY_MINUTE for job in ("NIGHTLY", "DAYTIME", "EPISODES", "REFLECTION")},
    }
    live = LiveServer(tmp_path, backend="postgres", env_extra=extra)
    try:
        live.prepare()
        live.manage("amem_schedules")
        live.manage(
            "shell",
            "-c",
            "from django.utils import timezone; from django_q.models import Schedule; "
            "Schedule.objects.filter(name__startswith='amem.').update(next_run=timezone.now())",
        )
        log_path = tmp_path / "qcluster.log"
        with open(log_path, "ab") as log:
            cluster = subprocess.Popen(
                [sys.executable, "manage.py", "qcluster"],
                cwd=ROOT,
                env=live.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            shared: dict[str, list[int]] = {}
            try:
                end = time.monotonic() + RUN_S
                while time.monotonic() < end and cluster.poll() is None:
                    shared.update(shared_connections(cluster.pid))
                    time.sleep(1)
                assert cluster.poll() is None, log_path.read_text(errors="replace")[-3000:]
            finally:
                cluster.terminate()
                try:
                    cluster.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    cluster.kill()
                    cluster.wait(timeout=30)
        output = log_path.read_text(errors="replace")
        tasks = query(live, "SELECT func, success FROM django_q_task")
        runs = query(live, "SELECT job, outcome FROM memories_jobrun")
    finally:
        live.drop()
    assert shared == {}, f"connections held by several processes: {shared}\n{output[-3000:]}"
    assert len(tasks) >= MIN_TASKS, output[-3000:]
    assert [t for t in tasks if not t[1]] == [], output[-3000:]
    assert runs and {outcome for _, outcome in runs} == {"ok"}, runs
    for trouble in ("Failed to pull task", "sudden death", "did not affect any rows", "Traceback"):
        assert trouble not in output, output[-3000:]
