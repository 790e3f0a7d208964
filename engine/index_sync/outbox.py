"""The outbox drainer: the process that owns the index brings it up to date in the background.

Writes commit notes with ``index_dirty=True`` (engine/index_sync/indexer.py). Reads never index:
``search()`` and the write side's look-ups query the index as it is. Instead the owning
process (the web server, started from amem_site/wsgi.py) runs one daemon thread that
applies dirty notes in bounded batches — woken after each commit (``kick``) and on a timer,
so notes written by the worker process (which never opens the index) or left dirty by a
failed sync arrive within ``INTERVAL`` seconds.

The same thread optimizes the embedded index about once every ``OPTIMIZE_EVERY`` seconds, at a
moment when no request is in flight. Notes written one by one land in a shard's appendable
segment, which the dense leg searches point by point: at 100,000 notes written through the API
and never optimized, the dense leg took 26 ms a query against 2–3 ms once optimized
(docs/benchmarks.md, "The index optimized while the server runs"). Qdrant's own optimizer decides
what an optimize call does: nothing (well under a millisecond) while the appendable part is below
its indexing threshold (about 6,500 vectors), otherwise it builds that part's graph. That call
holds the GIL, so the process pauses for its length: seconds, at most once an hour, when the hour
wrote thousands of notes; a store never optimized pauses once, longer (about 20 s at 100,000).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

from django.db import close_old_connections, connection, transaction

from engine import pacing, runtime
from engine.config import get_config
from engine.errors import AmemError
from engine.index_sync import indexer

log = logging.getLogger("engine.index_sync.outbox")

INTERVAL = 5.0  # seconds between rounds when nobody kicks
ROUND_LIMIT = 4 * indexer.BATCH  # notes per round, so one round never holds the thread for long
OPTIMIZE_EVERY = 3600.0  # seconds between two optimize calls on the index (see above); 0 = never
# An optimize that held the process longer than this is logged as a warning: requests waited for it.
SLOW_OPTIMIZE_S = 1.0


def drain(limit: int | None = None) -> indexer.SyncResult:
    """Apply dirty notes now, in this thread (tests, commands, the drainer's rounds)."""
    return indexer.sync_dirty(limit=limit)


class Drainer:
    """One daemon thread: ``kick()`` wakes it, otherwise it wakes every ``interval`` seconds."""

    def __init__(
        self, interval: float = INTERVAL, round_limit: int = ROUND_LIMIT, optimize_every: float = OPTIMIZE_EVERY
    ) -> None:
        self.interval = interval
        self.round_limit = round_limit
        self.optimize_every = optimize_every
        # None: not yet in this process, so a store left unoptimized by an earlier one is caught
        # at the first quiet moment after start-up.
        self.optimized_at: float | None = None
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
                else:
                    self.optimize_when_due()
            except AmemError as exc:
                log.warning("outbox drain failed, notes stay dirty: %s", exc)
            except Exception:
                log.exception("outbox drain failed, notes stay dirty")
            finally:
                _run_round_hooks()
                connection.close()
        # Stopping: what the hooks hold in memory is written before the thread ends.
        try:
            close_old_connections()
            _run_round_hooks()
        finally:
            connection.close()

    def optimize_when_due(self) -> bool:
        """Optimize the index if ``optimize_every`` has passed and no request is in flight; whether it did."""
        if self.optimize_every <= 0 or pacing.in_flight() > 0:
            return False
        now = time.monotonic()
        if self.optimized_at is not None and now - self.optimized_at < self.optimize_every:
            return False
        runtime.store().optimize()
        took = time.monotonic() - now
        self.optimized_at = time.monotonic()
        if took >= SLOW_OPTIMIZE_S:
            log.warning("index optimized in %.1f s; requests arriving meanwhile waited for it", took)
        return True


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


def running() -> bool:
    """Whether this process runs a drainer (the server), so work may wait for its next round."""
    drainer = _drainer
    return drainer is not None and drainer.running


# Called after every round of the drainer, in its thread: work a request left to the background
# (the heat counts of searches, engine/retrieval/heat.py) registers here, since the layers below
# it may not import it.
_round_hooks: list[Callable[[], None]] = []


def each_round(hook: Callable[[], None]) -> None:
    """Call ``hook`` after each of the drainer's rounds from now on (once, however often registered)."""
    with _lock:
        if hook not in _round_hooks:
            _round_hooks.append(hook)


def _run_round_hooks() -> None:
    with _lock:
        hooks = list(_round_hooks)
    for hook in hooks:
        try:
            hook()
        except Exception:  # one hook's failure (a database gone away) must not stop the drainer
            log.exception("the drainer's round hook %s failed", getattr(hook, "__qualname__", hook))


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
