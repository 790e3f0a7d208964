"""The JSON API roots (django-ninja): /api/v1/ and mem0's calls at /mem0/, engine errors mapped to statuses."""

from __future__ import annotations

import logging
import math

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import OperationalError
from django.http import HttpRequest, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from amem_site.json_parser import BoundedJsonParser
from amem_site.log_redaction import redact_path
from engine.errors import (
    AmemError,
    Busy,
    InvalidInput,
)
from surfaces.api.agent import router as agent_router
from surfaces.api.key import router as key_router
from surfaces.api.layers import router as layers_router
from surfaces.api.local import router as local_router
from surfaces.api.mem0.routes import router as mem0_router

log = logging.getLogger("amem.api")

api = NinjaAPI(title="amem", version="1", urls_namespace="api-v1", docs_url="/docs", parser=BoundedJsonParser())
api.add_router("/local/", local_router)
api.add_router("/", agent_router)
api.add_router("/", key_router)
api.add_router("/", layers_router)

# mem0's own client (mem0ai's MemoryClient) with host=".../mem0": a separate API, so its paths
# keep mem0's trailing slashes and its OpenAPI page lists only mem0's calls (docs/api.md).
mem0_api = NinjaAPI(title="amem: mem0-compatible API", version="1", urls_namespace="mem0", docs_url="/docs")
mem0_api.add_router("/", mem0_router)


def engine_error(request, exc: AmemError):
    if isinstance(exc, Busy):
        # Nothing was written: the client retries after Retry-After (docs/deploy.md).
        response = _answer(request, {"detail": str(exc)}, status=exc.status)
        response["Retry-After"] = str(exc.retry_after)
        return response
    if exc.status == 503:
        log.error("backing service unavailable: %s", exc)
        return _answer(request, {"detail": "a backing service is unavailable"}, status=503)
    if exc.status >= 500:
        log.exception("unexpected engine error")
        return _answer(request, {"detail": "internal error"}, status=500)
    return _answer(request, {"detail": str(exc)}, status=exc.status)


def _field(loc) -> str:
    # ninja's loc is (where, parameter name, field…); for a body the first two say nothing to the caller.
    parts = [str(p) for p in loc]
    if parts[:1] == ["body"]:
        parts = parts[2:]
    return ".".join(parts) or "body"


def _problem(error: dict) -> str:
    field = _field(error.get("loc", ()))
    if error.get("type") == "extra_forbidden":
        return f"{field}: unknown field"
    return f"{field}: {str(error.get('msg', 'invalid')).removeprefix('Value error, ')}"


def request_invalid(request, exc: ValidationError):
    # A request that does not fit its schema is the caller's mistake: 400. ninja's default is 422,
    # which this API keeps for the quality gate (a well-formed text that is too poor to keep).
    return _answer(request, {"detail": "; ".join(_problem(e) for e in exc.errors)}, status=400)


def body_unreadable(request, exc: HttpError):
    # ninja answers a body its parser refused with a bare "Cannot parse request body"; a body
    # nested past the limit says so (amem_site/json_parser.py).
    detail = str(exc.__cause__) if isinstance(exc.__cause__, InvalidInput) else str(exc)
    return _answer(request, {"detail": detail}, status=exc.status_code)


def unauthenticated(request, exc: AuthenticationError):
    response = _answer(request, {"detail": "missing, unknown or revoked API key"}, status=401)
    response["WWW-Authenticate"] = "Bearer"
    return response


def throttled(request, exc: Throttled):
    # Raised by a rate limit (surfaces/api/throttles.py); Retry-After in whole seconds (RFC 9110).
    response = _answer(request, {"detail": "too many requests; retry later"}, status=429)
    response["Retry-After"] = str(max(1, math.ceil(exc.wait or 1)))
    return response


def request_refused(request, exc: SuspiciousOperation):
    # Django answers these with a bare 400 page; ninja reads the body inside the view, so they arrive here.
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return _answer(request, {"detail": f"the request body is larger than {limit} bytes"}, status=413)
    return _answer(request, {"detail": "bad request"}, status=400)


def database_busy(request, exc: OperationalError):
    # The database is out of reach, the pool had no connection within AMEM_DB_POOL_TIMEOUT, or a
    # lock race outlived the engine's retries (engine/locking.py): a transaction that failed was
    # rolled back, so the request changed nothing and may be sent again.
    log.error("database unavailable in %s %s: %s", request.method, redact_path(request.path), exc)
    response = _answer(request, {"detail": "the database is busy or unavailable; retry later"}, status=503)
    response["Retry-After"] = "5"
    return response


def unexpected(request, exc: Exception):
    """Anything else is our bug: logged with its traceback, answered without internals."""
    log.exception("unhandled error in %s %s", request.method, redact_path(request.path))
    return _answer(request, {"detail": "internal error"}, status=500)


def _answer(request, data: dict, *, status: int):
    # One renderer for both APIs' errors: the same JSON, the same headers.
    return api.create_response(request, data, status=status)


for _each in (api, mem0_api):
    _each.exception_handler(AmemError)(engine_error)
    _each.exception_handler(ValidationError)(request_invalid)
    _each.exception_handler(AuthenticationError)(unauthenticated)
    _each.exception_handler(Throttled)(throttled)
    _each.exception_handler(SuspiciousOperation)(request_refused)
    _each.exception_handler(OperationalError)(database_busy)
    _each.exception_handler(HttpError)(body_unreadable)
    _each.exception_handler(Exception)(unexpected)


@csrf_exempt  # agents send no CSRF token; a POST to a wrong path still gets the JSON answer
def unknown_endpoint(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Any /api/ path no route answers: a JSON 404 (every API error is JSON), naming the likely slip."""
    detail = f"no API endpoint {request.method} {request.path}"
    if request.path.endswith("/"):
        try:
            resolve(request.path.rstrip("/"))
            detail += f"; API paths take no trailing slash: {request.path.rstrip('/')}"
        except Resolver404:
            pass
    return JsonResponse({"detail": detail}, status=404)


@csrf_exempt
def mem0_without_prefix(request: HttpRequest, rest: str = "") -> JsonResponse:
    """A mem0 call at the server's root (``host`` without ``/mem0``): a JSON 404 that says where it lives.

    mem0's client reads the body's ``detail`` into its error, so the user sees the fix, not an HTML page.
    """
    root = request.build_absolute_uri("/").rstrip("/")
    detail = (
        f"no endpoint {request.method} /{rest}: amem serves mem0's calls under /mem0 — "
        f'MemoryClient(api_key=KEY, host="{root}/mem0")'
    )
    return JsonResponse({"detail": detail}, status=404)


@csrf_exempt
def unknown_mem0_call(request: HttpRequest, rest: str = "") -> JsonResponse:
    """A mem0 path amem does not serve (exports, webhooks, projects, profiles…): a JSON 404 naming it."""
    detail = (
        f"amem's mem0-compatible API does not serve {request.method} /{rest}; "
        "the calls it serves and how each maps are in docs/api.md"
    )
    return JsonResponse({"detail": detail}, status=404)
