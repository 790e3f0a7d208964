"""The outbox drainer: the process that owns the index brings it up to date in the background.

Writes commit notes with ``index_dirty=True`` (engine/index_sync/indexer.py). Reads never index:
``search()`` and the write side's look-ups query the index as it is. Instead the owning
process (the web server, started from amem_site/wsgi.py) runs one daemon thread that
applies dirty notes in bounded batches — woken after each commit (``kick``) and on a timer,
so notes written by the worker process (which never opens the index) or left dirty by a
failed sync arrive within ``INTERVAL`` seconds.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from django.db import close_old_connections, connection, transaction

from engine import runtime
from engine.config import get_config
from engine.errors import AmemError
from engine.index_sync import indexer

log = logging.getLogger("engine.index_sync.outbox")

INTERVAL = 5.0  # seconds between rounds when nobody kicks
ROUND_LIMIT = 4 * indexer.BATCH  # notes per round, so one round never holds the thread for long


def drain(limit: int | None = None) -> indexer.SyncResult:
    """Apply dirty notes now, in this thread (tests, commands, the drainer's rounds)."""
    return indexer.sync_dirty(limit=limit)


class Drainer:
    """One daemon thread: ``kick()`` wakes it, otherwise it wakes every ``interval`` seconds."""

    def __init__(self, interval: float = INTERVAL, round_limit: int = ROUND_LIMIT) -> None:
        self.interval = interval
        self.round_limit = round_limit
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="amem-outbox", daemon=True)
        self._thread.start()

    def kick(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.interval)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                close_old_connections()
                result = drain(limit=self.round_limit)
                if result.indexed >= self.round_limit:
                    self._wake.set()  # more left: go again without waiting for the timer
            except AmemError as exc:
                log.warning("outbox drain failed, notes stay dirty: %s", exc)
            except Exception:
                log.exception("outbox drain failed, notes stay dirty")
            finally:
                connection.close()


_drainer: Drainer | None = None
_lock = threading.Lock()


def start() -> Drainer | None:
    """Open the index and start the drainer, if this process may own the index (web, not worker)."""
    global _drainer
    if not runtime.index_available():
        return None
    # Open the shared collection now (shards open, and lock, on first use): the first CLI call
    # after start-up then finds it held and is forwarded here.
    runtime.store().ensure_collection(get_config().collection)
    with _lock:
        if _drainer is None:
            _drainer = Drainer()
        _drainer.start()
        drainer = _drainer
    drainer.kick()  # what was left dirty before the start
    return drainer


def stop() -> None:
    global _drainer
    with _lock:
        drainer, _drainer = _drainer, None
    if drainer is not None:
        drainer.stop()


def kick() -> None:
    """Wake the drainer if this process runs one (a no-op elsewhere: workers, commands, tests)."""
    drainer = _drainer
    if drainer is not None:
        drainer.kick()


def sync_after_commit(note_ids: Iterable) -> None:
    """Once the current transaction commits: index these (the writer's own) notes and wake the drainer.

    The write's own notes are applied in the writing thread so a client that searches right
    after its write finds it; anything else dirty is the drainer's (below).
    """
    ids = list(note_ids)

    def after_commit() -> None:
        try:
            indexer.sync_notes(ids)
        finally:
            kick()

    # robust: the write has committed, so nothing after it may fail the request (a client told
    # "500" would send it again and store it twice); a note not indexed here stays dirty for the drainer.
    transaction.on_commit(after_commit, robust=True)
