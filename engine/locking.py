"""How the engine takes database locks so that concurrent requests never deadlock a client.

SQLite runs every transaction ``IMMEDIATE`` (amem_site/settings.py): one writer at a time,
so its writers cannot deadlock. PostgreSQL locks rows, and two transactions that take the
same rows in different orders deadlock; the server then aborts one of them. Three rules
keep that away from clients:

* **Keys in one order.** A transaction that decides something per key (the current fact of
  a subject and relation) first takes an advisory lock per key, all keys sorted
  (``hold_keys``): the key, not whichever rows happen to exist, is what concurrent writers
  queue on.
* **Bookkeeping never waits.** Heat bumps and the indexer's "indexed" marks touch rows that
  writes also lock; they take only the rows free right now, in id order
  (``free_rows``), and leave the others for the next search or the next drain round.
  A transaction that never waits can never close a deadlock cycle. On SQLite a heat bump
  waits for the write lock only ``briefly``, then skips.
* **What is left, retried.** A deadlock or serialization failure rolls the whole
  transaction back, so an operation that is one transaction can simply run again
  (``retry_on_conflict``); a client never sees it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import random
import time
from collections.abc import Callable, Iterable, Iterator
from typing import ParamSpec, TypeVar

from django.db import DatabaseError, OperationalError, connection
from django.db.models import Model, QuerySet

log = logging.getLogger("engine.locking")

# PostgreSQL's SQLSTATEs for "your transaction lost a race; run it again".
RETRYABLE_STATES = frozenset({"40P01", "40001"})  # deadlock_detected, serialization_failure
ATTEMPTS = 4

P = ParamSpec("P")
R = TypeVar("R")
M = TypeVar("M", bound=Model)


def is_retryable(exc: BaseException) -> bool:
    """A deadlock or serialization failure (Django wraps psycopg's error; its cause has the state)."""
    cause = exc.__cause__
    return isinstance(exc, DatabaseError) and getattr(cause, "sqlstate", None) in RETRYABLE_STATES


def retry_on_conflict(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` (one whole transaction) again when the database aborts it as a deadlock victim.

    Only around code that opens its own outermost transaction and changes nothing outside it:
    inside an outer transaction the abort belongs to the caller, who is told as before.
    """

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return func(*args, **kwargs)
            except DatabaseError as exc:
                if attempt == ATTEMPTS or connection.in_atomic_block or not is_retryable(exc):
                    raise
                log.info("%s lost a lock race (%s); attempt %d of %d", func.__qualname__, exc, attempt + 1, ATTEMPTS)
                time.sleep(random.uniform(0.01, 0.05) * attempt)  # jitter, not security
        raise AssertionError("unreachable")

    return wrapper


def key_number(*parts: str) -> int:
    """A signed 64-bit number for an advisory lock; a collision only makes two keys queue together."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def hold_keys(keys: Iterable[tuple[str, ...]]) -> None:
    """Lock these keys until the current transaction ends, in one order (PostgreSQL advisory locks).

    On SQLite the IMMEDIATE transaction already holds the database's one write lock.
    """
    if connection.vendor != "postgresql":
        return
    if not connection.in_atomic_block:
        raise RuntimeError("hold_keys needs a transaction: the locks end with it")
    numbers = sorted({key_number(*key) for key in keys})
    if numbers:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(k) FROM unnest(%s::bigint[]) AS k ORDER BY k", [numbers])


@contextlib.contextmanager
def briefly(ms: int = 5) -> Iterator[None]:
    """On SQLite, wait at most ``ms`` for the database's write lock ("database is locked" after).

    5 ms, not more: while a 1,000-turn conversation stores its notes, every search's heat bump
    waited this long before giving up, and at 50 ms that was most of another agent's extra
    search time on SQLite during a flood (docs/benchmarks.md, the flood's SQLite runs).

    SQLite has no row locks to skip: a bookkeeping write would queue behind a whole write
    transaction (a 1,000-turn conversation) for up to the 20 s busy timeout. Inside a
    caller's transaction the lock is already held, and PostgreSQL uses ``free_rows``.
    """
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    connection.ensure_connection()
    raw = connection.connection
    before = raw.execute("PRAGMA busy_timeout").fetchone()[0]
    raw.execute(f"PRAGMA busy_timeout = {int(ms)}")
    try:
        yield
    finally:
        raw.execute(f"PRAGMA busy_timeout = {int(before)}")


def is_busy(exc: BaseException) -> bool:
    """SQLite's "database is locked": another transaction holds the write lock."""
    return isinstance(exc, OperationalError) and "database is locked" in str(exc)


def free_rows(rows: QuerySet[M]) -> QuerySet[M]:
    """``rows`` locked now, without waiting for any held by another transaction, in id order.

    Call inside a transaction; the locks last until it ends. SQLite ignores row locks (its
    IMMEDIATE transaction holds the whole database).
    """
    return rows.select_for_update(skip_locked=True).order_by("pk")
