"""What an erased note leaves outside the database rows: cached text and SQLite's log.

Both the erasure (engine/erasure.py) and the indexer, in the process that owns the index,
run these after an erasure commits.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection

from engine import runtime

log = logging.getLogger(__name__)


def forget_cached_text() -> None:
    """The embedder keeps recent texts in memory (engine/index/vector_cache.py): empty it."""
    runtime.embedder().cache.clear()


def checkpoint_sqlite() -> bool:
    """Move the WAL into the database file and truncate it, so no log frame keeps erased text.

    ``secure_delete`` has already zeroed the freed bytes in the database pages. Returns
    False when a reader held the log open (its next checkpoint truncates it).
    """
    if connection.vendor != "sqlite":
        return True
    if connection.in_atomic_block:  # an outer transaction (tests): its commit's checkpoint comes later
        return False
    try:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            busy, _log, _done = cursor.fetchone()
    except DatabaseError as exc:
        log.warning("erasure: the SQLite log could not be checkpointed now: %s", exc)
        return False
    if busy:
        log.warning("erasure: the SQLite log could not be truncated now (a reader holds it); it will be")
    return not busy
