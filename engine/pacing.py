"""Heavy work gives way to other requests of the same process while they run.

A long conversation's writing (inserting a thousand notes, reading their facts, indexing them)
is Python holding the GIL for seconds; the searches other agents send meanwhile wait for it at
every step. With the per-agent slot alone (surfaces/heavy.py) another agent's search p95 rose to
1.5–1.8× its idle p95 while one agent flooded (docs/benchmarks.md, "Flood"). So heavy work runs
in chunks, and between chunks, while any other request is in flight in this process, it pauses
for ``PAUSE_SHARE`` of the time its last chunk took (at most ``MAX_PAUSE_S``): the other requests
get the GIL to themselves for that long. Heavy work never waits for the others to end, so a
steady stream of searches slows it by at most that share and can never starve it (a lower CPU
priority, tried before, did starve it: surfaces/heavy.py).

Only threads inside ``heavy()`` pause; the web layer counts requests in flight
(``RequestsInFlight``, amem_site's middleware). Anything else (commands, the benchmarks, tests,
the nightly jobs) never pauses.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

PAUSE_SHARE = 1.0  # pause as long as the chunk ran: heavy work gets half the GIL while others run
MAX_PAUSE_S = 0.1

_lock = threading.Lock()
_in_flight = 0  # requests being served by this process, heavy ones included
_heavy = 0  # of those, how many are inside heavy()
_local = threading.local()


def request_started() -> None:
    global _in_flight
    with _lock:
        _in_flight += 1


def request_finished() -> None:
    global _in_flight
    with _lock:
        _in_flight -= 1


def in_flight() -> int:
    """Requests being served by this process now, heavy ones included."""
    return _in_flight


def others_in_flight() -> int:
    """Requests in flight that are not heavy work."""
    return _in_flight - _heavy


@contextmanager
def heavy() -> Iterator[None]:
    """The body is heavy work: ``give_way()`` inside it pauses while other requests run."""
    global _heavy
    with _lock:
        _heavy += 1
    _local.since = time.perf_counter()
    try:
        yield
    finally:
        with _lock:
            _heavy -= 1
        _local.since = None


def give_way() -> None:
    """Between two chunks of heavy work: pause while other requests are in flight (see above)."""
    since = getattr(_local, "since", None)
    if since is None:
        return
    now = time.perf_counter()
    if others_in_flight() > 0:
        time.sleep(min(MAX_PAUSE_S, (now - since) * PAUSE_SHARE))
        now = time.perf_counter()
    _local.since = now


def chunks(items: list, size: int) -> Iterator[list]:
    """``items`` in slices of ``size``, giving way before each slice after the first."""
    for start in range(0, len(items), size):
        if start:
            give_way()
        yield items[start : start + size]
