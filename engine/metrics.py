"""The engine's own timings for operators: how long searches and writes take, in this process.

Histograms from prometheus-client, observed where the work happens (so a search through the
API, MCP or the local bridge counts the same); ``GET /metrics`` exposes them with the rest
(amem_site/metrics.py). Figures that other processes produce too — jobs, model calls, the
outbox — are read from the database at scrape time instead, so a worker's share is not lost.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from prometheus_client import Histogram

# Searches run in milliseconds, writes up to model calls of seconds.
_SEARCH_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_WRITE_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

SEARCH_SECONDS = Histogram(
    "amem_search_seconds", "Searches, query embedding included, by outcome", ["outcome"], buckets=_SEARCH_BUCKETS
)
WRITE_SECONDS = Histogram(
    "amem_write_seconds",
    "Writes by path (memory, episodic, conversation) and outcome",
    ["path", "outcome"],
    buckets=_WRITE_BUCKETS,
)

P = ParamSpec("P")
R = TypeVar("R")


def timed(histogram: Histogram, **labels: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Observe each call's duration with ``labels`` plus ``outcome`` (``ok`` or the exception's name)."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            started = time.perf_counter()
            outcome = "ok"
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                outcome = type(exc).__name__
                raise
            finally:
                histogram.labels(outcome=outcome, **labels).observe(time.perf_counter() - started)

        return run

    return wrap
