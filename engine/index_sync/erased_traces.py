"""What an erased note leaves outside the database rows: cached text, SQLite's log, PostgreSQL's files.

Both the erasure (engine/erasure.py) and the indexer, in the process that owns the index,
run these after an erasure commits.

PostgreSQL never overwrites a row in place: the erased text stays in the dead row versions of
the table and its indexes (a plain VACUUM, what autovacuum does, marks them free but leaves the
bytes), in the planner's statistics (ANALYZE samples column values into ``pg_statistic``) and in
the write-ahead log. ``compact_postgres`` rewrites all of it: VACUUM FULL of amem's tables (a new
file for each table and index, the old ones deleted), ANALYZE and VACUUM FULL of
``pg_statistic``, then a WAL switch and a CHECKPOINT, twice, so the segments that logged the text
lie before the redo point and the checkpoint removes them — removes, not recycles, only with
``wal_recycle = off`` (a recycled segment is renamed with its old bytes in it). What it could not
do (no privilege, ``wal_recycle`` on, WAL kept for archiving, a replication slot or
``wal_keep_size``) it reports; docs/deploy.md says what then remains and when it goes.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

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


@dataclass
class Compaction:
    """What ``compact_postgres`` did, and what it left (each a sentence for the log and the audit)."""

    tables: list[str] = field(default_factory=list)
    seconds: float = 0.0
    wal_removed: bool = False
    left: list[str] = field(default_factory=list)


def _touched_tables() -> list[str]:
    """amem's tables (every one may hold note text, a subject, a name), the admin's log, the task queue's."""
    from django.apps import apps

    models = [*apps.get_app_config("memories").get_models(), *apps.get_app_config("admin").get_models()]
    if apps.is_installed("django_q"):
        models += list(apps.get_app_config("django_q").get_models())
    return sorted({m._meta.db_table for m in models})


def compact_postgres() -> Compaction | None:
    """Rewrite what held erased text on PostgreSQL's disk (see the module's docstring); None elsewhere."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return None  # VACUUM cannot run inside a transaction (tests run in one: their commit is later)
    done = Compaction(tables=_touched_tables())
    started = time.monotonic()
    with connection.cursor() as cursor:
        quoted = ", ".join(connection.ops.quote_name(t) for t in done.tables)
        # Dead row versions and index entries: a fresh file per table and index, the old deleted.
        cursor.execute(f"VACUUM (FULL, ANALYZE) {quoted}")
        # ANALYZE replaced the sampled values; the old pg_statistic rows are dead versions: rewrite it.
        try:
            cursor.execute("VACUUM FULL pg_catalog.pg_statistic")
        except DatabaseError as exc:
            done.left.append(f"the planner's old statistics (VACUUM FULL pg_statistic needs its owner: {exc})")
        done.wal_removed = _retire_wal(cursor, done)
    done.seconds = round(time.monotonic() - started, 2)
    log.warning(
        "erasure: rewrote %d tables on PostgreSQL in %.1f s%s",
        len(done.tables),
        done.seconds,
        "" if not done.left else "; left: " + "; ".join(done.left),
    )
    return done


def _retire_wal(cursor, done: Compaction) -> bool:
    """Push the WAL that logged the text behind two checkpoints, so the second removes its segments."""
    cursor.execute(
        "SELECT current_setting('wal_recycle'), current_setting('wal_keep_size'), current_setting('archive_mode'),"
        " (SELECT count(*) FROM pg_replication_slots)"
    )
    recycle, keep, archive, slots = cursor.fetchone()
    try:
        for _ in range(2):
            cursor.execute("SELECT pg_switch_wal()")
            cursor.execute("CHECKPOINT")
    except DatabaseError as exc:
        done.left.append(
            "the write-ahead log until the next checkpoints remove it (pg_switch_wal and CHECKPOINT need "
            f"the pg_checkpoint role and EXECUTE on pg_switch_wal: {exc})"
        )
        return False
    reasons = []
    if recycle == "on":
        reasons.append("wal_recycle is on: removed segments are renamed for reuse with their bytes in them")
    if keep not in ("0", "0MB", "0kB"):
        reasons.append(f"wal_keep_size is {keep}")
    if archive != "off":
        reasons.append("archive_mode is on: the archive keeps every segment")
    if slots:
        reasons.append(f"{slots} replication slot(s) hold WAL for their consumers")
    if reasons:
        done.left.append("the write-ahead log's old segments until overwritten (" + "; ".join(reasons) + ")")
        return False
    return True
