"""One process owns an embedded index folder, for as long as its store is open.

qdrant-edge locks a shard's folder only while the shard is loaded, and an erasure closes and
reloads the shard to rewrite its segments (engine/index/store.py ``EdgeStore.erase``): in that
gap a command in another process (``amem_erase`` while the server runs) could load the shard,
and the two then wrote the same segment files ("IO Error: No such file or directory", then
"Shard is not initialized" on every drain). This lock is held on a file in the index root from
the first shard opened until the store closes, so the other process gets ``IndexLocked`` and
leaves the work to the owner, as documented. Within one process it is shared (tests and
``amem_reindex`` open several stores on one root). This module does not import Django.
"""

from __future__ import annotations

import fcntl
import threading
from pathlib import Path
from typing import IO

from engine.errors import IndexLocked

LOCK_FILE = ".amem-owner.lock"
_held: dict[Path, tuple[IO[str], int]] = {}
_guard = threading.Lock()


def claim(root: Path) -> None:
    """Take (or share, in this process) the owner's lock on ``root``; IndexLocked if another process holds it."""
    key = root.resolve()
    with _guard:
        if key in _held:
            handle, count = _held[key]
            _held[key] = (handle, count + 1)
            return
        key.mkdir(parents=True, exist_ok=True)
        handle = (key / LOCK_FILE).open("a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise IndexLocked(
                f"the embedded index {str(key)!r} is open in another process (the amem server?). "
                "Stop that process, or use its API, or point AMEM_QDRANT_URL at a Qdrant server."
            ) from None
        _held[key] = (handle, 1)


def release(root: Path) -> None:
    key = root.resolve()
    with _guard:
        if key not in _held:
            return
        handle, count = _held[key]
        if count > 1:
            _held[key] = (handle, count - 1)
            return
        del _held[key]
        handle.close()  # closing the file drops the flock
