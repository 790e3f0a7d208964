"""The maintenance jobs run the way production runs them: schedules synced by ``amem_schedules``,
picked up by a real ``manage.py qcluster`` (django-q2's scheduler), passed through the broker
(the ORM one by default, Redis when ``AMEM_REDIS_URL`` is set) and done by its worker, which
records the run (a JobRun row) and django-q2 its success.

Until now only the jobs' functions were tested, called directly: a broker or worker that never
ran a task would have gone unnoticed.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
import uuid

import pytest

from tests.conftest import REDIS_URL
from testsupport.live_server import ROOT, LiveServer

pytestmark = pytest.mark.slow

# django-q2 calls its scheduler every 30 s of the cluster's guard loop; a worker then starts the
# job's Python (Django, the engine) on a busy 2-core machine.
DEADLINE_S = 240


def rows(db: str, sql: str) -> list[tuple]:
    with sqlite3.connect(db, timeout=30) as conn:
        return conn.execute(sql).fetchall()


@pytest.mark.parametrize("broker", ["orm", "redis"])
def test_a_due_schedule_is_run_by_the_worker_through_the_broker(broker, tmp_path, request):
    redis_client = request.getfixturevalue("redis_client") if broker == "redis" else None
    # A queue name of its own: another run of the suite on the same Redis never takes this task.
    queue = f"amem-test-{uuid.uuid4().hex[:8]}"
    extra = {"AMEM_QUEUE_NAME": queue, "AMEM_PROCESS_ROLE": "worker", "AMEM_WORKERS": "1"}
    if broker == "redis":
        extra["AMEM_REDIS_URL"] = REDIS_URL
    live = LiveServer(tmp_path, env_extra=extra).prepare()
    db = str(tmp_path / "amem.sqlite3")
    live.manage("amem_schedules")
    live.manage(
        "shell",
        "-c",
        "from datetime import timedelta; from django.utils import timezone; from django_q.models import Schedule; "
        # Only this schedule is due: a cron schedule of the day (daytime's) may fall due inside the
        # test's minute and be run beside it.
        "Schedule.objects.exclude(name='amem.episodes').update(next_run=timezone.now() + timedelta(days=1)); "
        "Schedule.objects.filter(name='amem.episodes').update(next_run=timezone.now())",
    )
    log = open(tmp_path / "qcluster.log", "ab")  # noqa: SIM115 - closed below
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=live.env(), stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + DEADLINE_S
        done: list[tuple] = []
        while time.monotonic() < deadline and worker.poll() is None:
            done = rows(db, "SELECT func, success FROM django_q_task")
            if done:
                break
            time.sleep(1)
        assert worker.poll() is None, (tmp_path / "qcluster.log").read_text(errors="replace")[-3000:]
        assert done == [("engine.maintenance.tasks.episodes", 1)], (tmp_path / "qcluster.log").read_text(
            errors="replace"
        )[-3000:]
        runs = rows(db, "SELECT job, outcome, finished_at IS NOT NULL FROM memories_jobrun WHERE agent_id = ''")
        assert runs == [("episodes", "ok", 1)]
        # The schedule moved on to its next slot instead of firing again.
        again = rows(db, "SELECT next_run > datetime('now') FROM django_q_schedule WHERE name = 'amem.episodes'")
        assert again == [(1,)]
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=30)
        log.close()
        if redis_client is not None:
            redis_client.delete(f"django_q:{queue}:q")
