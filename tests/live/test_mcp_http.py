"""Remote MCP at /mcp of a live server, through the MCP SDK's own Streamable HTTP client.

The same tools as ``manage.py amem_mcp``, authenticated by the bearer key of the HTTP request:
the key (or a gateway key and its X-Amem-Agent) decides the agent, as for the JSON API.
"""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.surfaces.test_mcp import TOOLS

pytestmark = pytest.mark.slow


def connect(server, key: str | None, seen: list[int] | None = None, **headers: str) -> Client:
    """The SDK's client over Streamable HTTP; ``seen`` collects the HTTP statuses it got."""
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"

    async def record(response) -> None:
        if seen is not None:
            seen.append(response.status_code)

    http = httpx2.AsyncClient(headers=headers, timeout=120, event_hooks={"response": [record]})
    return Client(streamable_http_client(f"{server.url}/mcp", http_client=http), read_timeout_seconds=120)


def payload(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.fixture(scope="module")
def bobs_note(server) -> str:
    bob = server.create_agents(["bob"])[0]
    answer = server.call("POST", "/api/v1/memories", {"text": "Bob's locker code is 4711."}, key=bob)
    assert answer.status == 201, answer.body
    return answer.body["id"]


def test_an_mcp_host_lists_tools_adds_searches_and_recalls_over_http(server, bobs_note):
    async def scenario():
        async with connect(server, server.key) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            added = payload(await client.call_tool("memory_add", {"text": "Alice keeps her bike in the blue shed."}))
            server.wait_indexed()
            found = payload(await client.call_tool("memory_search", {"query": "where is the bike", "limit": 3}))
            recalled = payload(await client.call_tool("recall", {"query": "where does Alice keep her bike?"}))
            foreign = await client.call_tool("memory_get", {"memory_id": bobs_note})
            return names, added, found, recalled, foreign

    names, added, found, recalled, foreign = anyio.run(scenario)
    assert names == TOOLS
    assert added["outcome"] == "created"
    assert found["results"][0]["id"] == added["id"]
    assert "blue shed" in recalled["text"]
    # Another agent's note does not exist for this key.
    assert foreign.is_error and "404" in foreign.content[0].text and "no such note" in foreign.content[0].text


def _post(server, headers: dict, body: object = None):
    message = body or {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    return server.call(
        "POST", "/mcp", message, key=None, headers={"Accept": "application/json, text/event-stream", **headers}
    )


def test_without_a_key_or_with_a_wrong_one_the_answer_is_401(server):
    assert _post(server, {}).status == 401
    refused = _post(server, {"Authorization": "Bearer amem_not_a_key"})
    assert refused.status == 401 and refused.headers["WWW-Authenticate"] == "Bearer"

    seen: list[int] = []

    async def scenario() -> bool:
        try:
            async with connect(server, None, seen) as client:
                await client.list_tools()
        except Exception:  # the SDK's client fails the session (inside its task group)
            return True
        return False

    assert anyio.run(scenario), "the SDK's client gets no session without a key"
    assert seen and set(seen) == {401}, seen


def test_a_wrong_key_reaches_the_sdks_caller_with_amems_reason(server):
    async def scenario() -> str:
        try:
            async with connect(server, "amem_not_a_key") as client:
                await client.list_tools()
        except Exception as exc:  # the SDK raises its MCPError, possibly inside an exception group
            return repr(exc)
        return ""

    said = anyio.run(scenario)
    assert "missing, unknown or revoked API key" in said, said


def test_a_browser_origin_not_listed_is_refused_before_anything_else(server):
    refused = _post(server, {"Authorization": f"Bearer {server.key}", "Origin": "http://evil.example"})
    assert refused.status == 403 and "AMEM_MCP_ALLOWED_ORIGINS" in refused.body["detail"]
    # Without an Origin (MCP hosts outside a browser) the same request is answered.
    assert _post(server, {"Authorization": f"Bearer {server.key}"}).status == 200


def test_a_gateway_key_acts_for_the_agent_in_x_amem_agent(server, bobs_note):
    out = server.manage("amem_gateway", "create", "desk-")
    gateway = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("api key: "))
    assert _post(server, {"Authorization": f"Bearer {gateway}"}).status == 400, "a gateway key must name its agent"

    async def scenario():
        async with connect(server, gateway, **{"X-Amem-Agent": "desk-main"}) as client:
            added = payload(await client.call_tool("memory_add", {"text": "The desk lamp needs a new E27 bulb."}))
            count = payload(await client.call_tool("memory_count", {}))
            foreign = await client.call_tool("memory_get", {"memory_id": bobs_note})
            return added, count, foreign

    added, count, foreign = anyio.run(scenario)
    assert added["outcome"] == "created" and count == {"count": 1}
    assert foreign.is_error and "404" in foreign.content[0].text
    owner = server.sql(f"SELECT owner FROM memories_note WHERE id = '{added['id'].replace('-', '')}'")
    assert owner == [("desk-main",)]


def test_the_server_opens_no_stream_get_and_delete_answer_405(server):
    auth = {"Authorization": f"Bearer {server.key}", "Accept": "text/event-stream"}
    assert server.call("GET", "/mcp", key=None, headers=auth).status == 405
    assert server.call("DELETE", "/mcp", key=None, headers=auth).status == 405


def test_many_tool_calls_give_every_database_connection_back(server):
    """Each MCP request runs its API call on a worker thread of its own event loop: a connection that
    thread took and never gave back left the pool (AMEM_DB_POOL_SIZE, 8 here) a slot short, until
    every call waited out the pool timeout and answered 503 (seen on PostgreSQL)."""

    async def scenario():
        answers = []
        for _ in range(3 * server.pool_size):
            async with connect(server, server.key) as client:
                answers.append(await client.call_tool("memory_count", {}))
        return answers

    answers = anyio.run(scenario)
    assert [a.content[0].text for a in answers if a.is_error] == []
