"""Fair shares of a server for heavy requests (long conversations, jobs run on demand).

Gunicorn serves with a fixed number of threads (gunicorn.conf.py) on a few cores. Without
a bound, one agent posting eight 1,000-turn conversations held every thread and both
cores for minutes while other agents' searches and /healthz timed out. So a heavy request
first takes a slot, without waiting:

* at most ``AMEM_HEAVY_PER_AGENT`` (1) at once per agent, else ``429`` with Retry-After: it
  is this agent's own work that is queued up;
* at most ``AMEM_HEAVY_SLOTS`` (half the cores, at least 1) at once in the process, else
  ``503`` with Retry-After: the server is busy with others' heavy work.

Refused requests have written nothing; the client retries after Retry-After. The counts are
per process (one web process serves the embedded index, docs/deploy.md).

A heavy request that got its slot runs its work in a thread of its own at a lower CPU
priority (``at_low_priority``; on Linux, nice is per thread): when the cores are busy, the
scheduler serves the other agents' searches first.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from django.conf import settings
from django.db import connections

from engine.errors import Busy

RETRY_AFTER_S = 5
NICE = 10  # how much lower a heavy request's thread runs (0 = like every other thread, 19 = lowest)

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_running: Counter[str] = Counter()


@contextmanager
def slot(agent_id: str) -> Iterator[None]:
    """Hold one heavy slot for ``agent_id`` for the body of the ``with``; raise Busy if none is free."""
    with _lock:
        if _running[agent_id] >= settings.AMEM_HEAVY_PER_AGENT:
            raise Busy(
                f"this agent already has {_running[agent_id]} heavy request(s) running; retry when it ends",
                retry_after=RETRY_AFTER_S,
                mine=True,
            )
        if _running.total() >= settings.AMEM_HEAVY_SLOTS:
            raise Busy("the server is busy with other heavy requests; retry later", retry_after=RETRY_AFTER_S)
        _running[agent_id] += 1
    try:
        yield
    finally:
        with _lock:
            _running[agent_id] -= 1
            if _running[agent_id] <= 0:
                del _running[agent_id]


def is_heavy_conversation(turns: int) -> bool:
    return turns > settings.AMEM_HEAVY_TURNS


def at_low_priority(func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``func(*args, **kwargs)`` in a new thread niced by NICE (Linux), waited for; its result or its error.

    A thread of its own because a thread cannot raise its priority back without privileges:
    the request thread itself stays as it was. Its database connections close with it.
    """
    outcome: dict[str, object] = {}

    def run() -> None:
        if sys.platform == "linux":
            me = threading.get_native_id()
            with contextlib.suppress(OSError):  # NICE below the thread it started from (which it inherits)
                os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + NICE))
        try:
            outcome["value"] = func(*args, **kwargs)
        except BaseException as exc:  # handed to the request thread, which raises it
            outcome["error"] = exc
        finally:
            connections.close_all()

    worker = threading.Thread(target=run, name="amem-heavy", daemon=True)
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
