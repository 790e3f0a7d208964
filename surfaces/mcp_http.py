"""Remote MCP: the tools of ``manage.py amem_mcp`` over Streamable HTTP at ``/mcp``, in the web process.

An MCP host connects with ``Authorization: Bearer <key>``: an agent key, or a gateway key with
the agent it acts for in ``X-Amem-Agent`` (surfaces/gateways.py). Every tool call becomes one
request to this process's own JSON API, made in-process (no socket: a busy server cannot starve
itself of threads), carrying the caller's key and header. So the key decides the agent exactly as
for any HTTP caller, and the API's validation, rate limits and errors apply unchanged; the tools
themselves are surfaces/mcp_server.py's, shared with the stdio bridge.

Stateless, JSON answers (the MCP SDK's stateless mode): each POST stands alone, so any web process
can answer any request and nothing is kept between them; the server opens no event stream, so
anything but POST answers 405, as the specification allows. A request is refused before it reaches the
protocol when it carries an ``Origin`` not listed in ``AMEM_MCP_ALLOWED_ORIGINS`` (403, against DNS
rebinding: the specification's "servers MUST validate the Origin header"; MCP hosts outside a
browser send none), and when its key is missing, unknown or revoked (401).
"""

from __future__ import annotations

import contextvars
import logging
import threading
from typing import Any

import anyio
import httpx
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.db import connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from ninja.errors import Throttled

from engine.errors import AmemError
from surfaces import gateways
from surfaces.api.auth import AgentKey
from surfaces.mcp_server import AmemApi, build_server

PATH = "/mcp"
# The caller of the request being served: its key and acting-agent header go on every API call.
_caller: contextvars.ContextVar[AmemApi] = contextvars.ContextVar("mcp_caller")


class InProcess(httpx.AsyncBaseTransport):
    """httpx to this process's Django app, in a worker thread (Django refuses to run the ORM on a
    thread with an event loop, and the tool runs on the request's loop)."""

    def __init__(self, remote_addr: str) -> None:
        self.wsgi = httpx.WSGITransport(app=_django(), remote_addr=remote_addr)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        status, headers, content = await anyio.to_thread.run_sync(self._call, request)
        return httpx.Response(status, headers=headers, content=content)

    def _call(self, request: httpx.Request) -> tuple[int, httpx.Headers, bytes]:
        """The API call, read and closed on the worker thread, whose database connections then go
        back to the pool: each MCP request runs on an event loop of its own, so its worker thread is
        new and never serves again, and a connection it kept was a pool slot lost for good (every
        call answered 503 once the slots were gone, on PostgreSQL)."""
        try:
            answer = self.wsgi.handle_request(request)
            return answer.status_code, answer.headers, answer.read()  # read() closes: request_finished here
        finally:
            connections.close_all()


class CallerApi(AmemApi):
    """The API as the MCP request's caller: one shared set of tools, each call made with the
    credentials of the request it serves."""

    def __init__(self) -> None:
        super().__init__(origin="", key="")

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        return await _caller.get().call(method, path, body)


_django_app: WSGIHandler | None = None
_server: MCPServer | None = None
_lock = threading.Lock()


def _django() -> WSGIHandler:
    global _django_app
    with _lock:
        if _django_app is None:
            _django_app = WSGIHandler()
        return _django_app


def _protocol() -> tuple[Any, Any]:
    """The tools (built once per process) and, per request, a fresh stateless session manager and
    its ASGI app: the SDK's manager runs once, and the app is built with it."""
    global _server
    with _lock:
        if _server is None:
            _server = _quietly(lambda: build_server(CallerApi()))
        app = _server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            json_response=True,
            # Host and Origin are checked before the protocol: Django's ALLOWED_HOSTS, then here.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        return app, _server.session_manager


def _quietly(build):
    """Build the SDK's server without letting it configure logging: it calls ``logging.basicConfig``
    with its own handler at INFO, a no-op only while the root logger has a handler. In the web
    process Django's LOGGING decides (one format, the configured level)."""
    root = logging.getLogger()
    guard = logging.NullHandler()
    root.addHandler(guard)
    try:
        return build()
    finally:
        root.removeHandler(guard)


# JSON-RPC's range for server errors: the MCP SDK's client shows a JSON-RPC error's message, while a
# bare HTTP error reaches its caller only as "Server returned an error response".
REFUSED = -32001


def _refusal(status: int, detail: str, **headers: str) -> JsonResponse:
    """The refusal as JSON-RPC error (what MCP clients read) and as ``detail`` (what every amem error has)."""
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": REFUSED, "message": f"amem refused the request ({status}): {detail}"},
        "detail": detail,
    }
    response = JsonResponse(body, status=status)
    for name, value in headers.items():
        response[name] = value
    return response


@csrf_exempt  # MCP hosts send no CSRF token; the bearer key and the Origin check stand instead
def endpoint(request: HttpRequest) -> HttpResponse:
    """One MCP message (or batch) over Streamable HTTP, answered as JSON."""
    origin = request.headers.get("Origin")
    if origin is not None and origin not in settings.AMEM_MCP_ALLOWED_ORIGINS:
        return _refusal(403, f"origin {origin!r} is not allowed; list it in AMEM_MCP_ALLOWED_ORIGINS")
    if request.method != "POST":
        # No event stream to open (GET) and no session to end (DELETE): the specification's 405.
        # Never handed to the SDK, whose stream would hold this worker thread until the client left.
        return _refusal(405, "this MCP server answers POST only (stateless, JSON answers)", Allow="POST")
    try:
        agent = AgentKey()(request)
    except Throttled:
        return _refusal(429, "too many requests; retry later", **{"Retry-After": "60"})
    except AmemError as exc:  # the API's statuses (engine/errors.py); a server fault names no detail
        return _refusal(exc.status, str(exc) if exc.status < 500 else "a backing service is unavailable")
    if agent is None:
        return _refusal(401, "missing, unknown or revoked API key", **{"WWW-Authenticate": "Bearer"})
    headers = {"Authorization": request.headers["Authorization"]}
    if acting := request.headers.get(gateways.ACTING_HEADER):
        headers[gateways.ACTING_HEADER] = acting
    caller = AmemApi(
        origin=f"{request.scheme}://{request.get_host()}",
        key="",
        transport=InProcess(request.META.get("REMOTE_ADDR", "127.0.0.1")),
        headers=headers,
    )
    status, answer_headers, body = anyio.run(_serve, request, request.body, caller)
    response = HttpResponse(body, status=status)
    for name, value in answer_headers:
        if name.lower() not in (b"content-length", b"connection"):
            response[name.decode("latin-1")] = value.decode("latin-1")
    return response


async def _serve(request: HttpRequest, body: bytes, caller: AmemApi) -> tuple[int, list, bytes]:
    """The request through the MCP SDK's ASGI app, its answer collected (JSON, so it ends)."""
    _caller.set(caller)
    app, manager = _protocol()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": PATH,
        "raw_path": PATH.encode(),
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()],
        "server": (request.get_host().rsplit(":", 1)[0], int(request.get_port())),
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
    }
    done = anyio.Event()
    given = False
    status, headers, chunks = 500, [], []

    async def receive() -> dict:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                done.set()

    async with manager.run():
        await app(scope, receive, send)
    return status, headers, b"".join(chunks)
