"""The index process beside several web processes (``AMEM_WEB_PROCESSES`` above 1, the embedded index).

The embedded shard opens in one process only, so gunicorn's master starts one more process that
owns it (``python -m engine.index.served``) and its web processes ask it over a Unix socket
(engine/index/served.py). The master keeps it running: an index process that exits while the
server runs is started again after a second, said loudly in the log; the web processes' calls
meanwhile answer 503 and their writes stay dirty for the drainer. On the master's exit (after
its web processes have stopped, so their last drain has run) it is stopped with SIGTERM and
writes its shards down.

``prepare`` runs in gunicorn.conf.py before settings.py is read, so every web process (forked
from the master) reads the socket and key as settings (``AMEM_INDEX_SOCKET``, ``AMEM_INDEX_KEY``).
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from engine.index.served import KEY_VARIABLE

log = logging.getLogger("amem_site.index_process")

SOCKET_VARIABLE = "AMEM_INDEX_SOCKET"
RESTART_DELAY_S = 1.0
STOP_WAIT_S = 20.0  # writing the shards down at 1M notes takes seconds, not this


class IndexProcess:
    def __init__(self) -> None:
        # A folder only this user may enter, made at start (a failed configuration check leaves
        # nothing behind), short enough for a socket's path.
        self.folder = Path(tempfile.gettempdir()) / f"amem-index-{secrets.token_hex(6)}"
        self.address = str(self.folder / "index.sock")
        self.key = secrets.token_hex(32)
        self._proc: subprocess.Popen | None = None
        self._root: Path | None = None
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None

    def environ(self) -> dict[str, str]:
        return {SOCKET_VARIABLE: self.address, KEY_VARIABLE: self.key}

    def start(self, root: Path) -> None:
        self._root = Path(root)
        self.folder.mkdir(mode=0o700)
        self._spawn()
        self._supervisor = threading.Thread(target=self._supervise, name="amem-index-supervisor", daemon=True)
        self._supervisor.start()

    def _spawn(self) -> None:
        assert self._root is not None
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "engine.index.served", str(self._root), self.address],
            env={**os.environ, KEY_VARIABLE: self.key},
            # Out of the server's process group: a TERM to the group (Ctrl-C, systemd) reaches the
            # workers, whose last drain still needs the index; the master stops this one after them.
            start_new_session=True,
        )

    def _supervise(self) -> None:
        while not self._stopping.is_set():
            proc = self._proc
            assert proc is not None
            # No exit code is said: gunicorn's master reaps every child it is told of, this one too,
            # so wait() often finds it gone and reads 0.
            proc.wait()
            if self._stopping.is_set():
                return
            log.error(
                "amem: the index process (pid %d) stopped; starting it again: searches answer 503 meanwhile", proc.pid
            )
            if self._stopping.wait(RESTART_DELAY_S):
                return
            self._spawn()

    def stop(self) -> None:
        self._stopping.set()
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                log.error("amem: the index process did not stop within %.0f s; killed", STOP_WAIT_S)
                proc.kill()
                proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_process: IndexProcess | None = None


def prepare() -> IndexProcess:
    """Choose the socket and key and put them in this process's environment, for the web processes."""
    global _process
    _process = IndexProcess()
    os.environ.update(_process.environ())
    return _process


def start(root: Path) -> None:
    if _process is not None:
        _process.start(root)


def stop() -> None:
    if _process is not None:
        _process.stop()
