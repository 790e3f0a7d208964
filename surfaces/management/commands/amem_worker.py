"""The maintenance worker: django-q2's cluster, stopped within a deadline on SIGTERM or SIGINT.

``manage.py qcluster`` alone hangs on a stop: its parent handles the signal inside the
interpreter's exit-time join of the sentinel process, and when the signal reached the whole
process group (what systemd and Ctrl-C send) the sentinel died holding the stop event's
lock, so the parent waits on it for ever. Here the parent only notes the signal; the main
thread then asks the cluster to stop in a helper thread, waits at most
``AMEM_WORKER_STOP_SECONDS`` (8) and only while a cluster process still runs, kills what is
left of the cluster's processes and exits 0.
A job cut short this way is safe: every job is safe to run twice and the broker hands an
unfinished task out again (docs/maintenance.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from engine.maintenance import heartbeat

log = logging.getLogger("amem.worker")


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc; children first listed deepest last)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs: it exists and is not a zombie waiting for its parent to reap it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_for_stop(stopper: threading.Thread, deadline: float) -> None:
    """Wait for ``stopper`` (the cluster's stop) at most ``deadline`` seconds, and no longer than
    some cluster process still runs: when the whole process group got the signal, every cluster
    process is gone within a second or two while the stop itself hangs, and waiting out the full
    deadline made a stop take 10 s, a supervisor's usual kill limit."""
    ends = time.monotonic() + deadline
    while stopper.is_alive() and time.monotonic() < ends:
        stopper.join(0.2)
        if not any(_running(pid) for pid in _descendants(os.getpid())):
            return


class Command(BaseCommand):
    help = "Run the maintenance worker (django-q2 cluster) that stops cleanly on SIGTERM/SIGINT."

    def handle(self, *args, **options):
        if settings.AMEM_PROCESS_ROLE != "worker":
            raise CommandError("run the worker with AMEM_PROCESS_ROLE=worker (it must never open the embedded index)")
        deadline = settings.AMEM_WORKER_STOP_SECONDS
        from django_q.cluster import Cluster

        asked = threading.Event()

        def new_cluster() -> Cluster:
            made = Cluster()
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, lambda *_: asked.set())  # replaces the handler Cluster() installs
            return made

        cluster = new_cluster()
        beat = heartbeat.Heartbeat()
        cluster.start()
        self.stdout.write(f"amem worker: cluster {cluster.name} running (pid {os.getpid()})")
        while not asked.wait(1.0):
            beat.maybe_beat(running=cluster.sentinel.is_alive())
            if not cluster.sentinel.is_alive() and not asked.is_set():
                # An unreachable broker kills django-q2's cluster; start it again (after a pause)
                # rather than leave the schedules silently unrun. The heartbeat says why meanwhile.
                log.error("amem worker: the cluster stopped (%s); starting it again in 10 s", beat.last_detail)
                if asked.wait(10.0):
                    break
                cluster = new_cluster()
                cluster.start()
        self.stdout.write("amem worker: stopping")
        stopper = threading.Thread(target=cluster.stop, daemon=True, name="amem-worker-stop")
        stopper.start()
        _wait_for_stop(stopper, deadline)
        left = [pid for pid in _descendants(os.getpid()) if _running(pid)]
        if left:
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.stdout.write(f"amem worker: {len(left)} cluster process(es) did not stop in {deadline:g} s; killed")
        time.sleep(0.05)
        self.stdout.write("amem worker: stopped")
        self.stdout.flush()
        # The interpreter's exit would join the (now dead) sentinel through multiprocessing's
        # atexit hook, the very wait that hangs; nothing is left to clean up.
        os._exit(0)
