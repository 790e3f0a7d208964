"""The JSON API root (django-ninja): /api/v1/, with engine errors mapped to statuses."""

from __future__ import annotations

import logging

from ninja import NinjaAPI

from engine.errors import (
    AmemError,
    ConfigError,
    IndexLocked,
    IndexUnavailable,
    InvalidInput,
    NotFound,
    PermissionDenied,
    QualityRejected,
)
from memories.local_api import router as local_router

log = logging.getLogger("amem.api")

api = NinjaAPI(title="amem", version="1", urls_namespace="api-v1", docs_url="/docs")
api.add_router("/local/", local_router)

# Most specific first: the first matching class decides the status.
STATUS_FOR = [
    (QualityRejected, 422),
    (InvalidInput, 400),
    (NotFound, 404),
    (PermissionDenied, 403),
    (IndexLocked, 503),
    (IndexUnavailable, 503),
    (ConfigError, 503),
]


@api.exception_handler(AmemError)
def engine_error(request, exc: AmemError):
    for kind, status in STATUS_FOR:
        if isinstance(exc, kind):
            if status == 503:
                log.error("backing service unavailable: %s", exc)
                return api.create_response(request, {"detail": "a backing service is unavailable"}, status=503)
            return api.create_response(request, {"detail": str(exc)}, status=status)
    log.exception("unexpected engine error")
    return api.create_response(request, {"detail": "internal error"}, status=500)
