"""Rate limits of the agent API (django-ninja's throttles; counts in Django's cache).

Two limits, both answered 429 with Retry-After:
- per API key (``AMEM_API_RATE``): a well-behaved agent never notices it; a runaway loop does.
- per client address for requests whose key is missing or unknown (``AMEM_API_BAD_KEY_RATE``):
  ninja authenticates before it throttles, so a key guesser would otherwise only ever see 401s.
  Once over the limit the address is refused before its key is looked up, right key or not.

The counts live in Django's default cache: per-process memory, since the server runs one process
(docs/deploy.md); with several web processes, ``AMEM_CACHE_URL`` puts them in Redis, shared.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.http import HttpRequest
from ninja.errors import Throttled
from ninja.throttling import AnonRateThrottle, AuthRateThrottle

from engine.errors import ServiceUnavailable


@contextmanager
def cache_reachable() -> Iterator[None]:
    """The counts' cache failing (Redis down, AMEM_CACHE_URL wrong) is a 503 naming it, not a 500."""
    try:
        yield
    except Throttled:
        raise
    except Exception as exc:
        raise ServiceUnavailable(f"the rate-limit cache (AMEM_CACHE_URL) is unavailable: {exc}") from None


def presented_key(request: HttpRequest) -> str:
    """The key in ``Authorization: Bearer <key>``, or ``Token <key>`` (mem0's clients, surfaces/api/mem0/)."""
    scheme, _, key = request.headers.get("Authorization", "").partition(" ")
    return key.strip() if scheme.lower() in ("bearer", "token") else ""


class KeyRateThrottle(AuthRateThrottle):
    """Requests per API key (the key's hash, so two keys of one agent count apart).

    ninja keeps one throttle object per route and stores the request's history on it: the lock
    keeps two threads from counting into each other's read-modify-write of the cache.
    """

    scope = "key"
    _lock = threading.Lock()

    def allow_request(self, request: HttpRequest) -> bool:
        with self._lock:
            # Read per request, not once at import: the setting can change (tests, reloads).
            self.rate = settings.AMEM_API_RATE
            self.num_requests, self.duration = self.parse_rate(self.rate)
            with cache_reachable():
                return super().allow_request(request)

    def __init__(self) -> None:
        super().__init__(settings.AMEM_API_RATE)

    def get_cache_key(self, request: HttpRequest) -> str:
        ident = hashlib.sha256(presented_key(request).encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


class BadKeyThrottle(AnonRateThrottle):
    """Failed authentications per client address."""

    scope = "bad_key"

    def __init__(self) -> None:
        super().__init__(settings.AMEM_API_BAD_KEY_RATE)

    def get_cache_key(self, request: HttpRequest) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    _lock = threading.Lock()

    def refuse_if_over(self, request: HttpRequest) -> None:
        """Raise Throttled when the address already used up its failures (records nothing)."""
        limit, duration = self.num_requests, self.duration
        if limit is None or duration is None:  # no rate set
            return
        self.key = self.get_cache_key(request)
        # The clock allow_request reads, through the class: mypy takes a callable class attribute
        # for a method (ninja's own call carries a type: ignore).
        self.now = type(self).timer()
        with cache_reachable():
            self.history = [t for t in self.cache.get(self.key, []) if t > self.now - duration]
        if len(self.history) >= limit:
            raise self._throttled()

    def record_failure(self, request: HttpRequest) -> None:
        """Count one failed authentication; raise Throttled if that was one too many."""
        with self._lock, cache_reachable():
            if not self.allow_request(request):
                raise self._throttled()

    def _throttled(self) -> Throttled:
        # ninja annotates Throttled's wait as int, yet its own throttling passes this float
        # (ninja/operation.py, also with a type: ignore); amem_site/api.py rounds it up for Retry-After.
        return Throttled(wait=self.wait())  # type: ignore[arg-type]
