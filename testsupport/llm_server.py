"""A fake model provider on 127.0.0.1 speaking both wire formats the real SDKs use.

POST /v1/messages          Anthropic Messages API
POST /v1/chat/completions  OpenAI Chat Completions API

Replies come from a script: per-role queues (the role is read from the `[amem:<role>]`
marker every prompt starts with), then a shared FIFO queue, then a fallback text.
A scripted reply can instead be an HTTP error or held back until the server stops
(`held=True`, for timeout tests: only the client's timeout can end the call, however slow the
machine), or be
marked as cut off at the token budget (`truncated=True`). `sloppy(value, shape)` renders
a value the ways small local models get JSON wrong. An Anthropic request that forces a tool
(`tool_choice`, how amem sends the reply schema) is answered with a `tool_use` block whose
input is the scripted reply when that is a JSON object, as the real API does; any other
reply comes back as text, like a server that ignores tools. With `schema_support = False`
the server answers 400 to a request carrying a `response_format` or `tools`, as some
servers do. Every request is recorded (path, headers, JSON body) for assertions.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

_ROLE_RE = re.compile(r"\[amem:([a-z_]+)\]")


@dataclass(frozen=True)
class Scripted:
    text: str = ""
    status: int = 200
    held: bool = False  # never answered: the handler waits until the server stops
    tokens_in: int = 11
    tokens_out: int = 7
    truncated: bool = False  # finish_reason "length" / stop_reason "max_tokens"


SHAPES = ("prose", "fenced", "trailing_commas", "single_quotes", "truncated")


def sloppy(value: Any, shape: str) -> str:
    """``value`` as JSON the way a sloppy model writes it (see SHAPES)."""
    text = json.dumps(value, ensure_ascii=False)
    if shape == "prose":
        return f"Sure! Here is the JSON you asked for:\n{text}\nLet me know if you need anything else."
    if shape == "fenced":
        return f"```json\n{json.dumps(value, ensure_ascii=False, indent=2)}\n```"
    if shape == "trailing_commas":
        return _with_trailing_commas(value)
    if shape == "single_quotes":
        return text.replace("'", "’").replace('"', "'")
    if shape == "truncated":
        return text[: int(len(text) * 0.8)]
    raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")


def _with_trailing_commas(value: Any) -> str:
    """JSON with a comma after the last item of every non-empty list and object."""
    if isinstance(value, dict) and value:
        items = "".join(f"{json.dumps(k)}: {_with_trailing_commas(v)}, " for k, v in value.items())
        return "{" + items.rstrip() + "}"
    if isinstance(value, list) and value:
        return "[" + "".join(f"{_with_trailing_commas(v)}, " for v in value).rstrip() + "]"
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        """All message text in the request, whatever the wire format."""
        parts: list[str] = []
        system = self.body.get("system")
        if isinstance(system, str):
            parts.append(system)
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts.extend(b.get("text", "") for b in content if isinstance(b, dict))
        return "\n".join(parts)

    @property
    def role(self) -> str | None:
        match = _ROLE_RE.search(self.prompt)
        return match.group(1) if match else None

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))


@dataclass
class _Script:
    by_role: dict[str, deque[Scripted]] = field(default_factory=dict)
    fifo: deque[Scripted] = field(default_factory=deque)
    fallback: Scripted = field(default_factory=lambda: Scripted(text="(no scripted reply)"))


class FakeLLMServer:
    """Start with `start()` (or as a context manager); `url` is the Anthropic base URL."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.schema_support = True
        self._script = _Script()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()  # releases held replies

    # -------------------------------------------------------------- scripting

    def reply(
        self,
        text: str,
        *,
        role: str | None = None,
        status: int = 200,
        held: bool = False,
        tokens_in: int = 11,
        tokens_out: int = 7,
        truncated: bool = False,
    ) -> None:
        """Queue one reply for `role` (or for any request when role is None)."""
        item = Scripted(text, status, held, tokens_in, tokens_out, truncated)
        with self._lock:
            if role is None:
                self._script.fifo.append(item)
            else:
                self._script.by_role.setdefault(role, deque()).append(item)

    def reply_json(self, value: Any, *, role: str | None = None) -> None:
        self.reply(json.dumps(value, ensure_ascii=False), role=role)

    def reply_sloppy(self, value: Any, shape: str, *, role: str | None = None) -> None:
        """Queue ``value`` rendered as ``shape`` (a truncated one is marked as cut at the budget)."""
        self.reply(sloppy(value, shape), role=role, truncated=shape == "truncated")

    def fail(self, status: int = 500, *, role: str | None = None) -> None:
        self.reply("", role=role, status=status)

    def always(self, text: str) -> None:
        """The reply used when nothing is queued."""
        with self._lock:
            self._script.fallback = Scripted(text=text)

    def requests_for(self, role: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.role == role]

    # -------------------------------------------------------------- lifecycle

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_port}"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    def start(self) -> Self:
        self._stopping.clear()
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -------------------------------------------------------------- internals

    def _next(self, role: str | None) -> Scripted:
        with self._lock:
            queue = self._script.by_role.get(role or "")
            if queue:
                return queue.popleft()
            if self._script.fifo:
                return self._script.fifo.popleft()
            return self._script.fallback

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


def _make_handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep pytest output clean

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?", 1)[0]
            recorded = RecordedRequest(path=path, headers={k.lower(): v for k, v in self.headers.items()}, body=body)
            server._record(recorded)
            if path not in ("/v1/messages", "/v1/chat/completions"):
                self._send(404, {"error": {"type": "not_found_error", "message": path}})
                return
            refused = [k for k in ("response_format", "tools") if k in body]
            if not server.schema_support and refused:
                self._send(400, {"error": {"type": "invalid_request_error", "message": refused[0]}})
                return
            scripted = server._next(recorded.role)
            if scripted.held:
                server._stopping.wait()
            if scripted.status != 200:
                self._send(
                    scripted.status,
                    {
                        "type": "error",
                        "error": {"type": "api_error", "message": "scripted failure"},
                    },
                )
                return
            if path == "/v1/messages":
                self._send(200, _anthropic_body(recorded, scripted))
            else:
                self._send(200, _openai_body(recorded, scripted))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

    return Handler


def _anthropic_body(request: RecordedRequest, scripted: Scripted) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": scripted.text}
    stop = "end_turn"
    forced = request.body.get("tool_choice") or {}
    if forced.get("type") == "tool":
        try:
            value = json.loads(scripted.text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            block = {"type": "tool_use", "id": "toolu_fake", "name": forced.get("name", ""), "input": value}
            stop = "tool_use"
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [block],
        "stop_reason": "max_tokens" if scripted.truncated else stop,
        "stop_sequence": None,
        "usage": {"input_tokens": scripted.tokens_in, "output_tokens": scripted.tokens_out},
    }


def _openai_body(request: RecordedRequest, scripted: Scripted) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": scripted.text},
                "finish_reason": "length" if scripted.truncated else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": scripted.tokens_in,
            "completion_tokens": scripted.tokens_out,
            "total_tokens": scripted.tokens_in + scripted.tokens_out,
        },
    }
