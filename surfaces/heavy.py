"""Fair shares of a server for heavy requests (long conversations, jobs run on demand).

Gunicorn serves with a fixed number of threads (gunicorn.conf.py) on a few cores. Without
a bound, one agent posting eight 1,000-turn conversations held every thread and both
cores for minutes while other agents' searches and /healthz timed out. So a heavy request
first takes a slot, without waiting:

* at most ``AMEM_HEAVY_PER_AGENT`` (1) at once per agent, else ``429`` with Retry-After: it
  is this agent's own work that is queued up;
* at most ``AMEM_HEAVY_SLOTS`` (half the cores, at least 1) at once in the process, else
  ``503`` with Retry-After: the server is busy with others' heavy work.

Inside its slot, heavy work gives way to the process's other requests between its chunks
(engine/pacing.py). Refused requests have written nothing; the client retries after Retry-After. The counts are
per process (one web process serves the embedded index, docs/deploy.md).

Heavy work is not run at a lower CPU priority: tried (a niced thread per heavy request), it
starved on an oversubscribed machine (no 1,000-turn conversation stored in 15 minutes at load
50, each one refused at its deadline and sent again), docs/benchmarks.md.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from engine import pacing
from engine.errors import Busy

RETRY_AFTER_S = 5

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
        with pacing.heavy():
            yield
    finally:
        with _lock:
            _running[agent_id] -= 1
            if _running[agent_id] <= 0:
                del _running[agent_id]


def is_heavy_conversation(turns: int) -> bool:
    return turns > settings.AMEM_HEAVY_TURNS
