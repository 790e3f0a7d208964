"""GET /healthz: unauthenticated readiness — the database answers and, in a process that may open
the index, the index answers. It does not load or test the embedding model (that would make a
probe cost seconds); a model that cannot load shows as a clear error on the first write or search."""

from __future__ import annotations

from django.db import connection
from django.http import JsonResponse

from engine import runtime


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


def healthz(request):
    checks = {"database": _database_ok(), "index": _index_ok()}
    ok = all(checks.values())
    return JsonResponse({"status": "ok" if ok else "degraded", **checks}, status=200 if ok else 503)
