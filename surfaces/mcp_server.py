"""amem for MCP hosts: the agent API's operations as MCP tools, over stdio (`manage.py amem_mcp`)
and, with the same tools, over Streamable HTTP at /mcp of the web process (surfaces/mcp_http.py).

Every tool forwards to the running server's JSON API (docs/api.md) with the
agent's key, so the server stays the one owner of the embedded index and the key
decides the agent exactly as it does for HTTP callers. Nothing here touches the
database or the index.

Safety of the target URL (as the seed's bridge): only http(s); only this machine
unless ``AMEM_MCP_ALLOW_REMOTE`` is set, and then never plain HTTP, since the key
would cross the network in clear; the path is dropped (the API lives at
``/api/v1/`` of the origin).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import ValidationError

API_PREFIX = "/api/v1"
TIMEOUT_S = 60.0  # a full add_memory makes model calls


class BadServerUrl(ValueError):
    pass


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server_origin(url: str, *, allow_remote: bool) -> str:
    """``scheme://host[:port]`` of ``url``, or BadServerUrl saying what is wrong with it."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadServerUrl(f"AMEM_SERVER_URL must be an http(s) URL, not {url!r}")
    if not is_loopback(parts.hostname):
        if not allow_remote:
            raise BadServerUrl(
                f"AMEM_SERVER_URL points at another machine ({parts.hostname}); "
                "set AMEM_MCP_ALLOW_REMOTE=1 to allow that"
            )
        if parts.scheme != "https":
            raise BadServerUrl("a remote amem server must be reached over https: the agent key would travel in clear")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}"


@dataclass
class AmemApi:
    """The JSON API of one server, called with one agent's key."""

    origin: str
    key: str
    transport: httpx.AsyncBaseTransport | None = None
    # Sent instead of the key's header: a remote MCP caller's own Authorization and X-Amem-Agent
    # (surfaces/mcp_http.py).
    headers: dict[str, str] | None = None

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = self.headers or {"Authorization": f"Bearer {self.key}"}
        try:
            async with httpx.AsyncClient(base_url=self.origin, timeout=TIMEOUT_S, transport=self.transport) as http:
                response = await http.request(method, f"{API_PREFIX}{path}", json=body, headers=headers)
        except httpx.TransportError as exc:
            raise ToolError(
                f"the amem server is not reachable at {self.origin} ({type(exc).__name__}); "
                "start it (`make run`) or set AMEM_SERVER_URL"
            ) from None
        if response.status_code >= 400:
            raise ToolError(f"amem answered {response.status_code}: {_detail(response)}")
        return response.json()


def _detail(response: httpx.Response) -> str:
    if response.status_code == 401:
        return "the agent key (AMEM_API_KEY) is missing, unknown or revoked"
    try:
        return str(response.json().get("detail", response.reason_phrase))
    except ValueError:
        return response.reason_phrase


def _given(**fields: Any) -> dict[str, Any]:
    """The body without the arguments the caller left out, so the server's defaults apply."""
    return {k: v for k, v in fields.items() if v is not None}


def amem_version() -> str:
    try:
        return version("amem")
    except PackageNotFoundError:  # a checkout run without `pip install -e .`
        return "0+unknown"


class AmemMcpServer(MCPServer):
    """The SDK's server, with arguments refused in plain words ("query: required") instead of pydantic's dump."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"{name}: {_argument_problems(cause)}") from None


def _argument_problems(error: ValidationError) -> str:
    problems = []
    for found in error.errors():
        where = ".".join(str(part) for part in found["loc"]) or "arguments"
        problems.append(f"{where}: required" if found["type"] == "missing" else f"{where}: {found['msg'].lower()}")
    return "; ".join(problems)


def build_server(api: AmemApi) -> MCPServer:
    server = AmemMcpServer(
        "amem",
        version=amem_version(),
        instructions=(
            "Long-term memory for this agent. Search before answering questions about the user or past "
            "work; add durable facts and preferences; after a conversation turn, pass it to "
            "memory_process_turn and the memory decides what to remember, update or forget."
        ),
    )

    @server.tool()
    async def memory_add(
        text: str,
        scope: str | None = None,
        subjects: list[str] | None = None,
        sources: list[str] | None = None,
        note_type: str | None = None,
    ) -> dict[str, Any]:
        """Remember a fact (full pipeline: dedup, keywords, links). scope: private (default) or shared;
        subjects: the people it is about; note_type: memory or knowledge."""
        body = _given(text=text, scope=scope, subjects=subjects, sources=sources, note_type=note_type)
        return await api.call("POST", "/memories", body)

    @server.tool()
    async def memory_add_episodic(
        text: str,
        context: str | None = None,
        scope: str | None = None,
        subjects: list[str] | None = None,
        sources: list[str] | None = None,
    ) -> dict[str, Any]:
        """Record an event cheaply (no model call, no dedup). context: what it answers or where it happened."""
        body = _given(text=text, context=context, scope=scope, subjects=subjects, sources=sources)
        return await api.call("POST", "/memories/episodic", body)

    @server.tool()
    async def memory_search(
        query: str,
        limit: int | None = None,
        subject: str | None = None,
        topics_filter: list[str] | None = None,
    ) -> dict[str, Any]:
        """Find memories: hybrid dense + keyword search, then notes linked to the matches (via: link)."""
        body = _given(query=query, limit=limit, subject=subject, topics_filter=topics_filter)
        return await api.call("POST", "/memories/search", body)

    @server.tool()
    async def memory_get(memory_id: str) -> dict[str, Any]:
        """One memory by id, with the ids it links to."""
        return await api.call("GET", f"/memories/{_id(memory_id)}")

    @server.tool()
    async def memory_update(memory_id: str, text: str) -> dict[str, Any]:
        """Replace a memory's text; the old text stays in its history."""
        return await api.call("PATCH", f"/memories/{_id(memory_id)}", {"text": text})

    @server.tool()
    async def memory_forget(memory_id: str) -> dict[str, Any]:
        """Retire a memory: it leaves every search, its history stays (a person can undo it)."""
        return await api.call("DELETE", f"/memories/{_id(memory_id)}")

    @server.tool()
    async def memory_process_turn(messages: list[dict[str, str]], sources: list[str] | None = None) -> dict[str, Any]:
        """After a turn: pass the latest messages ({role, content}); the memory adds, updates or retires
        at most three facts and reports each."""
        return await api.call("POST", "/turns", _given(messages=messages, sources=sources))

    @server.tool()
    async def memory_count() -> dict[str, Any]:
        """How many memories this agent can read."""
        return await api.call("GET", "/memories/count")

    # --- memory layers (docs/memory-layers.md) ---------------------------------------

    @server.tool()
    async def recall(
        query: str, token_budget: int | None = None, subject: str | None = None, min_relevance: float | None = None
    ) -> dict[str, Any]:
        """What to know right now: core memory, relevant notes and facts, the latest episode, packed
        into token_budget tokens ("text" is ready to prepend to a prompt). Notes less likely than
        min_relevance (0-1; default the server's floor, 0 for none) to bear on query are left out."""
        body = _given(query=query, token_budget=token_budget, subject=subject, min_relevance=min_relevance)
        return await api.call("POST", "/recall", body)

    @server.tool()
    async def core_memory_read(name: str | None = None, subject: str | None = None) -> dict[str, Any]:
        """Core memory blocks (all, or the one called name); subject: the person a block is about."""
        query = _query(subject=subject)
        if name is None:
            return await api.call("GET", f"/core{query}")
        return await api.call("GET", f"/core/{_block(name)}{query}")

    @server.tool()
    async def core_memory_replace(name: str, path: str, value: Any, subject: str | None = None) -> dict[str, Any]:
        """Set the value at a dot path of a core block ("a.b.0"; "" = the whole block). Size-limited."""
        body = _given(path=path, value=value, subject=subject)
        body["value"] = value  # null is a value here
        return await api.call("POST", f"/core/{_block(name)}/replace", body)

    @server.tool()
    async def core_memory_append(name: str, path: str, value: Any, subject: str | None = None) -> dict[str, Any]:
        """Append a value to the list at a dot path of a core block (a missing key becomes a list)."""
        body = _given(path=path, value=value, subject=subject)
        body["value"] = value
        return await api.call("POST", f"/core/{_block(name)}/append", body)

    @server.tool()
    async def graph_query(entity: str, depth: int | None = None, as_of: str | None = None) -> dict[str, Any]:
        """Facts (subject, relation, object, validity) within depth hops (1–3) of entity, now or as_of (ISO)."""
        return await api.call("GET", f"/facts{_query(entity=entity, depth=depth, as_of=as_of)}")

    @server.tool()
    async def graph_add(
        subject: str, relation: str, object: str, valid_from: str | None = None, sources: list[str] | None = None
    ) -> dict[str, Any]:
        """Record a fact; a contradicting current one (lives_in, works_at, …) is closed, not deleted."""
        body = _given(subject=subject, relation=relation, object=object, valid_from=valid_from, sources=sources)
        return await api.call("POST", "/facts", body)

    @server.tool()
    async def episode_recall(query: str | None = None, limit: int | None = None) -> dict[str, Any]:
        """Session summaries: by topic (query) or the most recent ones."""
        return await api.call("GET", f"/episodes{_query(query=query, limit=limit)}")

    @server.tool()
    async def episode_close(session: str) -> dict[str, Any]:
        """Close a conversation session now: writes its summary (decisions, open items, topics, mood)."""
        return await api.call("POST", "/episodes/close", {"session": session})

    @server.tool()
    async def memory_reflect() -> dict[str, Any]:
        """Reflect now over the memories written since the last reflection: what recurs, what changed,
        what is still open. Writes one reflection memory citing them ("nothing_new" if too few)."""
        return await api.call("POST", "/reflect")

    return server


def _query(**params: Any) -> str:
    given = {k: v for k, v in params.items() if v is not None and v != ""}
    return f"?{urlencode(given)}" if given else ""


def _block(name: str) -> str:
    """A block name goes into the URL path: the server's own rule, checked before a request is made."""
    cleaned = name.strip()
    if not cleaned or not all(ch.isalnum() or ch in "-_" for ch in cleaned):
        raise ToolError(f"{name!r} is not a core memory block name")
    return cleaned


def _id(memory_id: str) -> str:
    """An id goes into the URL path: anything but a plain token is refused before a request is made."""
    cleaned = memory_id.strip()
    if not cleaned or not all(ch.isalnum() or ch == "-" for ch in cleaned):
        raise ToolError(f"{memory_id!r} is not a memory id")
    return cleaned
