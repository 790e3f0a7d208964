"""A database that cannot be reached, said in one line with its real cause.

With PostgreSQL's connection pool, a wrong ``DATABASE_URL`` surfaces as "couldn't get a
connection after 10.00 sec" after the pool has logged every failed attempt; the cause
(``database "x" does not exist``, a refused connection, a bad password) is in the first of
them. ``cause`` finds it: in the exception chain, or by one direct connection attempt.
"""

from __future__ import annotations

import logging

from django.db import connection


class OncePerMessage(logging.Filter):
    """Let each distinct message through once per process (the pool repeats its failures)."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message in self._seen:
            return False
        self._seen.add(message)
        return True


def cause(exc: BaseException) -> str:
    """The most specific message for a failed database connection."""
    seen = exc
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    message = str(seen).strip() or str(exc).strip()
    if "couldn't get a connection" in message and connection.vendor == "postgresql":
        message = _direct_attempt() or message
    return " ".join(message.split())


def _direct_attempt() -> str | None:
    """Connect once without the pool, to read the server's own refusal."""
    import psycopg

    params = connection.get_connection_params()
    params.pop("pool", None)
    params.pop("cursor_factory", None)
    params.pop("context", None)
    try:
        psycopg.connect(connect_timeout=5, **params).close()
    except psycopg.Error as exc:
        return str(exc)
    return None
