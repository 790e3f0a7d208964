"""The worker's heartbeat and the broker's reachability, for ``/healthz?deep`` (amem_site/health.py).

``manage.py amem_worker`` beats every ``BEAT_EVERY`` seconds: one ``WorkerBeat`` row per worker
(host:pid) saying when it was last alive, which broker it uses and whether that broker answered.
A worker whose cluster died, or that never started, stops beating; the health check says so.
"""

from __future__ import annotations

import os
import socket
import time

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from memories.models import WorkerBeat

BEAT_EVERY = 30.0
# A worker not seen for this long counts as gone (a few missed beats).
SEEN_WITHIN = 120.0


def broker_kind() -> str:
    return "redis" if settings.Q_CLUSTER.get("redis") else "orm"


def broker_status() -> tuple[bool, str]:
    """Whether the configured task broker answers now (a short timeout: a probe never hangs)."""
    if broker_kind() == "orm":
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            return True, ""
        except Exception as exc:
            return False, f"the ORM broker's database is unreachable: {exc}"
    import redis

    try:
        client = redis.Redis.from_url(str(settings.Q_CLUSTER["redis"]), socket_connect_timeout=2, socket_timeout=2)
        client.ping()
        return True, ""
    except redis.RedisError as exc:
        return False, f"the Redis broker is unreachable: {exc}"


class Heartbeat:
    def __init__(self) -> None:
        self.name = f"{socket.gethostname()}:{os.getpid()}"
        self.last_detail = ""
        self._last = 0.0

    def maybe_beat(self, *, running: bool) -> None:
        if time.monotonic() - self._last < BEAT_EVERY:
            return
        self._last = time.monotonic()
        ok, detail = broker_status()
        if not running:
            detail = detail or "the task cluster is not running"
        self.last_detail = detail
        close_old_connections()
        WorkerBeat.objects.update_or_create(
            name=self.name,
            defaults={
                "seen_at": timezone.now(),
                "broker": broker_kind(),
                "broker_ok": ok and running,
                "detail": detail[:300],
            },
        )


def last_seen() -> WorkerBeat | None:
    """The most recent beat of a worker on the configured broker."""
    return WorkerBeat.objects.filter(broker=broker_kind()).order_by("-seen_at").first()
