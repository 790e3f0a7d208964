"""Errors the engine raises on purpose: each carries a message meant for a person, and ``status``,
the HTTP status every surface answers it with (the API, the mem0 router, remote MCP): one table."""

from __future__ import annotations


class AmemError(Exception):
    """Base class: commands and the API print ``str(err)`` without a traceback."""

    status = 500


class ConfigError(AmemError):
    """A setting is unusable (unknown embedding model, bad value)."""

    status = 503


class EmbeddingModelError(ConfigError):
    """The embedding model cannot be loaded."""


class IndexMismatch(ConfigError):
    """The index was built with another embedding model or dimension."""


class IndexLocked(AmemError):
    """The embedded index folder is owned by another process."""

    status = 503


class IndexUnavailable(AmemError):
    """The index backend failed or cannot be reached."""

    status = 503


class ServiceUnavailable(AmemError):
    """A backing service other than the database and the index (the cache) is down or misconfigured."""

    status = 503


class QualityRejected(AmemError):
    """Input failed the quality gate; nothing was written."""

    status = 422


class InvalidInput(AmemError):
    """Input is malformed (bad UTF-8, control characters, too long, unknown field)."""

    status = 400


class NotFound(AmemError):
    """No such agent or note visible to the caller (never says which)."""

    status = 404


class PermissionDenied(AmemError):
    """The caller may read but not change this note."""

    status = 403


class LimitExceeded(AmemError):
    """A well-formed change would push a stored value over its size limit; nothing was written."""

    status = 422


class Busy(AmemError):
    """Refused for now, nothing written: the caller should retry after ``retry_after`` seconds.

    ``mine``: the caller's own heavy requests are what is full (API 429); otherwise the
    server's (API 503).
    """

    def __init__(self, message: str, *, retry_after: int, mine: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.mine = mine
        self.status = 429 if mine else 503
