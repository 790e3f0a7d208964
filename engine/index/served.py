"""The embedded index served to several processes: one index process owns the shard, the others ask it.

qdrant-edge opens a shard folder in one process only, and the web server's searches cost far
more Python than index work: over HTTP a search spends about 1 ms of its 16–18 ms of CPU in the
two index legs, the rest in Django, the ranking and the query encoder, all under one process's
lock (docs/benchmarks.md, "Where a search's time goes over HTTP"). So with
``AMEM_WEB_PROCESSES`` above 1 (docs/deploy.md) the gunicorn master starts this module as a
process of its own (``python -m engine.index.served ROOT SOCKET``; amem_site/index_process.py):
it holds the folder's lock and answers ``VectorStore`` calls over a Unix socket, one thread per
connection, and every web process uses ``ServedStore``, a ``VectorStore`` whose calls go there.

The socket is authenticated (multiprocessing's HMAC handshake, the key in ``AMEM_INDEX_KEY``)
and lives in a folder only its user may enter. Each thread of a client keeps one connection, so
a search makes one round trip per index call (the index process's CPU, the legs included, was
1.4–1.7 ms a search under load: docs/benchmarks.md). An index process that does not answer is an
``IndexUnavailable`` (503), as a Qdrant server that does not answer is; a write has committed
by then and stays dirty for the drainer, as always.

This module does not import Django.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import AmemError, IndexMismatch, IndexUnavailable
from engine.index.store import EdgeStore, Hit, IndexFilter, IndexPoint, SparseVector, VectorStore

log = logging.getLogger("engine.index.served")

KEY_VARIABLE = "AMEM_INDEX_KEY"
# The VectorStore calls a client may make; anything else is refused by name.
CALLS = frozenset(
    {
        "ensure_collection",
        "drop_collection",
        "collections",
        "upsert",
        "delete",
        "query_dense",
        "query_sparse",
        "query_legs",
        "count",
        "ids",
        "optimize",
        "erase",
    }
)
# How long a client waits for the index process's socket to appear: it is started beside the
# web processes and binds its socket before it loads anything.
CONNECT_WAIT_S = 10.0


class IndexServer:
    """Owns the ``EdgeStore`` under ``root`` and answers calls on ``address`` until stopped."""

    def __init__(self, root: Path, address: str, authkey: bytes) -> None:
        self.root = Path(root)
        self.address = address
        self._authkey = authkey
        self._store: EdgeStore | None = None
        self._opening = threading.Lock()
        self._listener: Listener | None = None
        self._stopping = threading.Event()
        self._conns: set[Connection] = set()

    def bind(self) -> None:
        """Listen on the socket (a stale file left by a killed index process is replaced)."""
        if os.path.exists(self.address):
            os.unlink(self.address)
        self._listener = Listener(self.address, family="AF_UNIX", authkey=self._authkey)

    def serve_forever(self) -> None:
        """Answer connections until ``stop``; then write the shards down and release the folder."""
        if self._listener is None:
            self.bind()
        listener = self._listener
        assert listener is not None
        try:
            while not self._stopping.is_set():
                try:
                    conn = listener.accept()
                except Exception as exc:  # a client that failed the handshake (a wrong key), or went away
                    if self._stopping.is_set():
                        break
                    log.warning("index process: a connection was refused: %s", exc)
                    continue
                with self._opening:
                    self._conns.add(conn)
                threading.Thread(target=self._answer, args=(conn,), name="amem-index-conn", daemon=True).start()
        finally:
            self._stopping.set()
            listener.close()
            with self._opening:
                conns, self._conns = self._conns, set()
            for conn in conns:  # the clients see the end at once; each answering thread then closes its own
                with (
                    contextlib.suppress(OSError),
                    socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as raw,
                ):
                    raw.shutdown(socket.SHUT_RDWR)
            with self._opening:
                store, self._store = self._store, None
            if store is not None:
                store.close()

    def stop(self) -> None:
        """Ask ``serve_forever`` (in another thread) to end."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        # accept() does not wake when its socket closes: a connection does (a bare one, so this
        # never waits for a handshake).
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as wake:
            wake.connect(self.address)

    def _answer(self, conn: Connection) -> None:
        try:
            while True:
                method, args, kwargs = conn.recv()
                try:
                    reply: tuple[bool, Any] = (True, self._call(method, args, kwargs))
                except Exception as exc:
                    reply = (False, _portable(exc))
                conn.send(reply)
        except (EOFError, OSError):
            pass  # the client went away, or the server is stopping
        finally:
            with self._opening:
                self._conns.discard(conn)
            with contextlib.suppress(OSError):
                conn.close()

    def _call(self, method: str, args: tuple, kwargs: dict) -> Any:
        if method == "open":
            self._open(*args)
            return None
        if method not in CALLS:
            raise IndexUnavailable(f"the index process does not answer {method!r}")
        store = self._store
        if store is None:
            raise IndexUnavailable("the index process was asked before a client opened it")
        result = getattr(store, method)(*args, **kwargs)
        return list(result) if method == "ids" else result

    def _open(self, embedding_model: str, dimension: int) -> None:
        """The first client opens the store with its model; a client with another model is refused."""
        with self._opening:
            if self._store is None:
                self._store = EdgeStore(self.root, embedding_model, dimension)
            elif (self._store.embedding_model, self._store.dimension) != (embedding_model, dimension):
                raise IndexMismatch(
                    f"the index process serves {self._store.embedding_model} ({self._store.dimension} dimensions); "
                    f"this process embeds with {embedding_model} ({dimension}): every web process needs the same model"
                )


class _Broken(IndexUnavailable):
    """The connection failed under a call (not an error the index process answered)."""


def _portable(exc: Exception) -> Exception:
    """The error as the client should raise it: the engine's own errors as they are, others named."""
    if isinstance(exc, AmemError):
        try:
            pickle.dumps(exc)
            return exc
        except Exception:
            pass
    return IndexUnavailable(f"the index process failed: {type(exc).__name__}: {exc}")


class ServedStore(VectorStore):
    """A ``VectorStore`` whose calls the index process answers (one connection per thread)."""

    def __init__(self, address: str, authkey: bytes, embedding_model: str, dimension: int) -> None:
        super().__init__(embedding_model, dimension)
        self.address = address
        self._authkey = authkey
        self._local = threading.local()
        self._open_conns: set[Connection] = set()

    def _connection(self) -> Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        deadline = time.monotonic() + CONNECT_WAIT_S
        while True:
            try:
                conn = Client(self.address, family="AF_UNIX", authkey=self._authkey)
                break
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                if time.monotonic() >= deadline:
                    raise IndexUnavailable(
                        f"the index process does not answer on {self.address} ({exc.strerror}); "
                        "the server's log says why (AMEM_WEB_PROCESSES, docs/deploy.md)"
                    ) from None
                time.sleep(0.05)
            except Exception as exc:  # a wrong key fails the handshake
                raise IndexUnavailable(f"cannot connect to the index process on {self.address}: {exc}") from None
        self._local.conn = conn
        with self._lock:
            self._open_conns.add(conn)
        self._ask(conn, "open", (self.embedding_model, self.dimension), {})
        return conn

    def _ask(self, conn: Connection, method: str, args: tuple, kwargs: dict) -> Any:
        try:
            conn.send((method, args, kwargs))
            ok, value = conn.recv()
        except (EOFError, OSError) as exc:
            self._forget(conn)
            raise _Broken(f"the index process stopped answering on {self.address}: {exc or 'closed'}") from None
        if not ok:
            raise value
        return value

    def _forget(self, conn: Connection) -> None:
        self._local.conn = None
        with self._lock:
            self._open_conns.discard(conn)
        with contextlib.suppress(OSError):
            conn.close()

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        fresh = getattr(self._local, "conn", None) is None
        try:
            return self._ask(self._connection(), method, args, kwargs)
        except _Broken:
            if fresh:
                raise
        # A connection kept from before an index process restarted: once more on a new one. Every
        # call is safe to repeat (queries; upserts and deletes of the same points).
        return self._ask(self._connection(), method, args, kwargs)

    def ensure_collection(self, name: str) -> None:
        self._call("ensure_collection", name)

    def drop_collection(self, name: str) -> None:
        self._call("drop_collection", name)

    def collections(self) -> list[str]:
        return self._call("collections")

    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        self._call("upsert", collection, list(points))

    def delete(self, collection: str, ids: Iterable[str]) -> None:
        self._call("delete", collection, list(ids))

    def query_dense(self, collection: str, vector: np.ndarray, flt: IndexFilter, limit: int) -> list[Hit]:
        return self._call("query_dense", collection, vector, flt, limit)

    def query_sparse(self, collection: str, vector: SparseVector, flt: IndexFilter, limit: int) -> list[Hit]:
        return self._call("query_sparse", collection, vector, flt, limit)

    def query_legs(
        self, collection: str, dense: np.ndarray | None, sparse: SparseVector, flt: IndexFilter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        return self._call("query_legs", collection, dense, sparse, flt, limit)

    def count(self, collection: str, flt: IndexFilter | None = None) -> int:
        return self._call("count", collection, flt)

    def ids(self, collection: str) -> Iterator[str]:
        return iter(self._call("ids", collection))

    def optimize(self) -> None:
        self._call("optimize")

    def erase(self, collection: str, ids: Iterable[str]) -> None:
        self._call("erase", collection, list(ids))

    def close(self) -> None:
        """Drop this process's connections; the index process and its shards stay."""
        with self._lock:
            conns, self._open_conns = self._open_conns, set()
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.close()
        self._local = threading.local()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.index.served ROOT SOCKET`` with the key in ``AMEM_INDEX_KEY`` (hex)."""
    args = list(sys.argv[1:] if argv is None else argv)
    key = os.environ.get(KEY_VARIABLE, "")
    if len(args) != 2 or not key:
        print(f"usage: {KEY_VARIABLE}=HEX python -m engine.index.served INDEX_ROOT SOCKET", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="amem index: %(message)s")
    server = IndexServer(Path(args[0]), args[1], bytes.fromhex(key))
    server.bind()
    # The signals wait for the main thread alone (sigwait below): a handler would run only once the
    # main thread ran Python again, and a thread blocked in accept() never does.
    stops = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    serving = threading.Thread(target=server.serve_forever, name="amem-index-accept")
    serving.start()
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="amem-index-parent", daemon=True).start()
    log.info("serving %s on %s (pid %d)", args[0], args[1], os.getpid())
    signal.sigwait(stops)
    server.stop()
    serving.join()  # serve_forever's last step writes the shards down
    return 0


def _exit_with_parent(parent: int) -> None:
    """A master killed outright (SIGKILL) cannot stop its index process, which would keep the
    folder locked against the next server: the process stops itself once its parent is gone."""
    while os.getppid() == parent:
        time.sleep(1.0)
    log.warning("the server that started this index process is gone; stopping")
    os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    sys.exit(main())
