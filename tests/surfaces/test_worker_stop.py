"""amem_worker's stop: it waits for the cluster's stop only while a cluster process still runs."""

from __future__ import annotations

import os
import subprocess
import threading
import time

from surfaces.management.commands import amem_worker


def hung_stop() -> threading.Thread:
    # django-q2's stop after a process-group TERM: it never returns.
    stopper = threading.Thread(target=threading.Event().wait, daemon=True)
    stopper.start()
    return stopper


def test_a_hung_stop_is_not_waited_out_once_no_cluster_process_runs(monkeypatch):
    monkeypatch.setattr(amem_worker, "_descendants", lambda pid: [])
    t0 = time.monotonic()
    amem_worker._wait_for_stop(hung_stop(), deadline=30.0)
    assert time.monotonic() - t0 < 5.0


def test_a_running_cluster_process_is_waited_for_until_the_deadline(monkeypatch):
    monkeypatch.setattr(amem_worker, "_descendants", lambda pid: [os.getpid()])  # this process runs
    t0 = time.monotonic()
    amem_worker._wait_for_stop(hung_stop(), deadline=0.6)
    assert time.monotonic() - t0 >= 0.6


def test_a_zombie_does_not_count_as_running():
    child = subprocess.Popen(["true"])  # exits at once; not reaped until wait(): a zombie
    try:
        deadline = time.monotonic() + 10
        while amem_worker._running(child.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not amem_worker._running(child.pid)
        assert os.path.exists(f"/proc/{child.pid}")  # still there, as a zombie
    finally:
        child.wait()
    assert amem_worker._running(os.getpid())
