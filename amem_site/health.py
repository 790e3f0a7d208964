"""GET /healthz: unauthenticated readiness — the database answers and, in a process that may open
the index, the index answers. It does not load or test the embedding model (that would make a
probe cost seconds); a model that cannot load shows as a clear error on the first write or search.

``GET /healthz?deep`` (for operators, a few queries more) also reports who owns the index, the
outbox (notes waiting for the index, and how long the oldest has waited), an index holding
fewer notes than the database (lost or half-rebuilt: the fix is named), the task broker and
whether a worker was seen recently on it (manage.py amem_worker's heartbeat). Any of those
failing makes it 503 "degraded", with the reason in ``problems``.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.utils import timezone

from engine import runtime
from engine.index_sync import coverage


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        return False


def _index_ok() -> bool:
    if not runtime.index_available():
        return True
    try:
        return runtime.store().ping()
    except Exception:
        return False


def _cache_problem() -> str:
    """ "" when the API's rate-limit cache answers (always, for the per-process default)."""
    if not settings.AMEM_CACHE_URL:
        return ""
    from django.core.cache import cache

    try:
        cache.get("amem:healthz")
        return ""
    except Exception as exc:
        return f"the rate-limit cache (AMEM_CACHE_URL) is unavailable: {exc}"


def healthz(request):
    cache_problem = _cache_problem()
    checks = {"database": _database_ok(), "index": _index_ok(), "cache": not cache_problem}
    ok = all(checks.values())
    body: dict = {"status": "ok" if ok else "degraded", **checks}
    if not runtime.takes_writes():
        # Up, but a write would wait for the embedding model (seconds after a start): not ready yet.
        body["status"], body["model"], ok = "starting", False, False
    if "deep" in request.GET and checks["database"]:
        problems, body["deep"] = _deep(checks["index"])
        body["deep"]["cache"] = {"kind": "redis" if settings.AMEM_CACHE_URL else "memory", "ok": not cache_problem}
        if cache_problem:
            problems.insert(0, cache_problem)
        body["problems"] = problems
        ok = ok and not problems
        body["status"] = "ok" if ok else "degraded"
    return JsonResponse(body, status=200 if ok else 503)


def _deep(index_ok: bool) -> tuple[list[str], dict]:
    from engine.maintenance import heartbeat

    problems: list[str] = []
    report: dict = {}
    if settings.AMEM_QDRANT_URL:
        report["index_owner"] = f"Qdrant server {settings.AMEM_QDRANT_URL}"
    elif runtime.index_available():
        report["index_owner"] = f"this web process (pid {os.getpid()}), {settings.AMEM_QDRANT_PATH}"
    else:
        report["index_owner"] = "the web process (this one is a worker)"
    report["outbox"] = coverage.outbox()
    if index_ok and runtime.index_available():
        gap = coverage.gap()
        report["index"] = gap.as_dict()
        if gap.missing:
            problems.append(gap.message())
    ok, detail = heartbeat.broker_status()
    report["broker"] = {"kind": heartbeat.broker_kind(), "ok": ok, "detail": detail}
    if not ok:
        problems.append(detail)
    beat = heartbeat.last_seen()
    age = (timezone.now() - beat.seen_at).total_seconds() if beat else None
    report["worker"] = {
        "last_seen_seconds": round(age, 1) if age is not None else None,
        "broker_ok": beat.broker_ok if beat else None,
        "detail": beat.detail if beat else "",
    }
    if age is None or age > heartbeat.SEEN_WITHIN:
        problems.append(
            f"no worker seen on the {heartbeat.broker_kind()} broker "
            + (f"for {age:.0f} s" if age is not None else "yet")
            + " (is `manage.py amem_worker` running?)"
        )
    elif beat is not None and not beat.broker_ok:
        problems.append(f"the worker reports: {beat.detail}")
    return problems, report
