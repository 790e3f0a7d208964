"""Database connections never cross a fork: a forked process opens its own.

django-q2's cluster forks its sentinel, pusher, monitor and workers from processes that
already talked to the database (the scheduler runs in the sentinel, which forks a new
worker whenever one is recycled). With PostgreSQL the connections live in a psycopg pool
(amem_site/settings.py); ``connections.close_all()``, which django-q2 calls before it forks,
only hands them back to that pool, so every child inherited the pool and its open sockets.
Two processes then spoke on one socket: the pusher received the worker's results ("the last
operation didn't produce records"), saves "did not affect any rows", processes died.

Two hooks, registered by amem_site/apps.py for every fork of the process. Just before it,
``close_before_fork`` hands back the forking thread's connection and closes the pools, so
the child inherits none. Right after it, in the child, ``forget_inherited_connections``
deals with whatever was left (a connection inside a transaction): the child drops the pool and connection objects it inherited and closes
its copies of their sockets' file descriptors. It never closes the connections themselves:
that would send PostgreSQL a "terminate" and end the parent's sessions. Closing a descriptor
copy only releases the child's reference to the socket; the parent keeps talking on it. The
child then opens its own connections on first use. (psycopg never closes a connection object
that another process made when it is collected.)
"""

from __future__ import annotations

import contextlib
import os

from django.db import connections

_inherited: list[object] = []  # the parent's objects: kept, never used, never closed here


def _release_socket(conn: object) -> None:
    """Close this process's copy of a psycopg connection's socket descriptor (never the connection)."""
    try:
        fd = conn.pgconn.socket  # type: ignore[attr-defined]
    except Exception:  # closed, or not a psycopg connection (SQLite): nothing to release
        return
    with contextlib.suppress(OSError):
        os.close(fd)


def forget_inherited_connections() -> None:
    for alias in connections:
        wrapper = connections[alias]
        if wrapper.connection is not None:
            _release_socket(wrapper.connection)
            _inherited.append(wrapper.connection)
            wrapper.connection = None
        # A fork in the middle of a transaction: the child is not in it.
        wrapper.in_atomic_block = False
        wrapper.savepoint_ids = []
        wrapper.needs_rollback = False
        wrapper.closed_in_transaction = False
        wrapper.run_on_commit = []
        pools = getattr(type(wrapper), "_connection_pools", None)
        if pools and alias in pools:
            pool = pools.pop(alias)
            # Its idle connections (psycopg_pool keeps them in ``_pool``; the ones in use belong to
            # the parent's other threads, which the child does not have).
            for conn in list(getattr(pool, "_pool", ())):
                _release_socket(conn)
            # Kept referenced: collecting the pool would wait for worker threads the child never had.
            _inherited.append(pool)


def close_before_fork() -> None:
    """In the parent, just before it forks: hand back this thread's connections and close the pools.

    The child then inherits no pool at all, not even a connection a pool thread was opening at
    that instant (which no list holds, so the child could not release it). The parent opens a
    new pool on its next query. A connection inside a transaction is left alone: the child
    still forgets it (``forget_inherited_connections``).
    """
    for alias in connections:
        wrapper = connections[alias]
        if wrapper.in_atomic_block:
            continue
        wrapper.close()
        pools = getattr(type(wrapper), "_connection_pools", None)
        if pools and alias in pools:
            wrapper.close_pool()  # type: ignore[attr-defined]  # PostgreSQL's wrapper only


_registered = False


def register() -> None:
    """Once per process (apps.ready may run again in tests)."""
    global _registered
    if not _registered:
        os.register_at_fork(before=close_before_fork, after_in_child=forget_inherited_connections)
        _registered = True
