"""amem_mcp: a real MCP client talks stdio to `manage.py amem_mcp`, which forwards to a live server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.server.mcpserver.exceptions import ToolError

from memories.models import ApiKey, Note
from surfaces.mcp_server import AmemApi, BadServerUrl, amem_version, build_server, server_origin

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {
    "memory_add",
    "memory_add_episodic",
    "memory_search",
    "memory_get",
    "memory_update",
    "memory_forget",
    "memory_process_turn",
    "memory_count",
    "recall",
    "core_memory_read",
    "core_memory_replace",
    "core_memory_append",
    "graph_query",
    "graph_add",
    "episode_recall",
    "episode_close",
    "memory_reflect",
}


pytestmark = pytest.mark.usefixtures("offline_llm")


def mcp_env(tmp_path, url: str, key: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AMEM_", "DATABASE_URL"))}
    env.update(AMEM_DATA_DIR=str(tmp_path / "mcp-data"), AMEM_SERVER_URL=url, AMEM_API_KEY=key, **extra)
    return env


def session(tmp_path, url: str, key: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "manage.py"), "amem_mcp"],
        env=mcp_env(tmp_path, url, key),
        cwd=str(ROOT),
    )
    return Client(params, read_timeout_seconds=120)


def payload(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.mark.slow
def test_an_mcp_host_adds_searches_updates_and_forgets_through_the_server(alice, bob, store, live_server, tmp_path):
    key = ApiKey.issue(alice)[1]
    bobs = Note.objects.create(agent_id="bob", owner="bob", readers=["bob"], writers=["bob"], content="Bob's secret.")

    async def scenario():
        async with session(tmp_path, live_server.url, key) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            added = payload(await client.call_tool("memory_add", {"text": "Alice keeps her bike in the blue shed."}))
            found = payload(await client.call_tool("memory_search", {"query": "where is the bike", "limit": 3}))
            count = payload(await client.call_tool("memory_count", {}))
            updated = payload(
                await client.call_tool(
                    "memory_update", {"memory_id": added["id"], "text": "Alice keeps her bike in the garage now."}
                )
            )
            foreign = await client.call_tool("memory_get", {"memory_id": str(bobs.pk)})
            forgotten = payload(await client.call_tool("memory_forget", {"memory_id": added["id"]}))
            short = await client.call_tool("memory_add", {"text": "hi"})
            return names, added, found, count, updated, foreign, forgotten, short

    names, added, found, count, updated, foreign, forgotten, short = anyio.run(scenario)
    assert names == TOOLS
    assert added["outcome"] == "created"
    assert found["results"][0]["id"] == added["id"]
    assert count == {"count": 1}
    assert updated["content"] == "Alice keeps her bike in the garage now."
    # The key decides the agent: Bob's note does not exist for Alice's MCP server.
    assert foreign.is_error and "404" in foreign.content[0].text
    assert forgotten == {"id": added["id"], "retired": True}
    assert not Note.objects.get(pk=added["id"]).is_active
    # The server's 422 detail reaches the host.
    assert short.is_error and "422" in short.content[0].text and "shorter than" in short.content[0].text


@pytest.mark.slow
def test_a_revoked_key_is_reported_as_such(alice, store, live_server, tmp_path):
    row, key = ApiKey.issue(alice)
    row.revoke()

    async def scenario():
        async with session(tmp_path, live_server.url, key) as client:
            return await client.call_tool("memory_count", {})

    result = anyio.run(scenario)
    assert result.is_error and "AMEM_API_KEY" in result.content[0].text


@pytest.mark.slow  # starts the command in a subprocess
def test_without_a_key_the_command_refuses_to_start(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "amem_mcp"],
        env=mcp_env(tmp_path, "http://127.0.0.1:8000", ""),
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "AMEM_API_KEY" in done.stderr
    assert done.stdout == ""  # stdout belongs to the protocol


@pytest.mark.slow  # starts the command in a subprocess
def test_a_remote_server_is_refused_unless_allowed(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "amem_mcp"],
        env=mcp_env(tmp_path, "https://memory.example.com", "k"),
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "AMEM_MCP_ALLOW_REMOTE" in done.stderr


@pytest.mark.parametrize(
    ("url", "allow_remote", "origin"),
    [
        ("http://127.0.0.1:8000/some/path?x=1", False, "http://127.0.0.1:8000"),
        ("http://localhost:9000", False, "http://localhost:9000"),
        ("http://[::1]:8000/", False, "http://[::1]:8000"),
        ("https://memory.example.com/api", True, "https://memory.example.com"),
    ],
)
def test_the_origin_keeps_scheme_host_and_port_only(url, allow_remote, origin):
    assert server_origin(url, allow_remote=allow_remote) == origin


@pytest.mark.parametrize(
    ("url", "allow_remote", "why"),
    [
        ("ftp://127.0.0.1/", False, "http"),
        ("file:///etc/passwd", False, "http"),
        ("http://10.0.0.5:8000", False, "AMEM_MCP_ALLOW_REMOTE"),
        ("http://memory.example.com", True, "https"),
    ],
)
def test_unsafe_server_urls_are_refused(url, allow_remote, why):
    with pytest.raises(BadServerUrl, match=why):
        server_origin(url, allow_remote=allow_remote)


def test_an_unreachable_server_is_named_in_the_error():
    api = AmemApi("http://127.0.0.1:9", "key")
    with pytest.raises(ToolError, match=r"not reachable at http://127\.0\.0\.1:9"):
        anyio.run(api.call, "GET", "/memories/count")


def test_a_path_like_id_never_reaches_the_server():
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"count": 0})

    server = build_server(AmemApi("http://127.0.0.1:8000", "key", transport=httpx.MockTransport(record)))

    async def scenario():
        async with Client(server) as client:
            return await client.call_tool("memory_get", {"memory_id": "../count"})

    result = anyio.run(scenario)
    assert result.is_error and "not a memory id" in result.content[0].text
    assert seen == []


def test_omitted_arguments_are_not_sent_so_the_server_defaults_apply():
    bodies: list[dict] = []

    def record(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={"results": []})

    server = build_server(AmemApi("http://127.0.0.1:8000", "key", transport=httpx.MockTransport(record)))

    async def scenario():
        async with Client(server) as client:
            return await client.call_tool("memory_search", {"query": "bike"})

    assert not anyio.run(scenario).is_error
    assert bodies == [{"query": "bike"}]


def test_the_layer_tools_call_the_contract_routes():
    seen: list[tuple[str, str, object]] = []

    def record(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        seen.append((request.method, str(request.url).removeprefix("http://127.0.0.1:8000/api/v1"), body))
        return httpx.Response(200, json={})

    server = build_server(AmemApi("http://127.0.0.1:8000", "key", transport=httpx.MockTransport(record)))
    calls = [
        ("recall", {"query": "tea", "token_budget": 300}),
        ("core_memory_read", {}),
        ("core_memory_read", {"name": "user", "subject": "alex"}),
        ("core_memory_replace", {"name": "user", "path": "a.b", "value": None}),
        ("core_memory_append", {"name": "user", "path": "likes", "value": "tea", "subject": "alex"}),
        ("graph_query", {"entity": "Alex Smith", "depth": 2}),
        ("graph_add", {"subject": "Alex", "relation": "lives_in", "object": "Lisbon"}),
        ("episode_recall", {"limit": 3}),
        ("episode_close", {"session": "s1"}),
        ("memory_reflect", {}),
        ("core_memory_read", {"name": "../memories"}),
    ]

    async def scenario():
        async with Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    results = anyio.run(scenario)
    assert [r.is_error for r in results] == [False] * 10 + [True]
    assert seen == [
        ("POST", "/recall", {"query": "tea", "token_budget": 300}),
        ("GET", "/core", None),
        ("GET", "/core/user?subject=alex", None),
        ("POST", "/core/user/replace", {"path": "a.b", "value": None}),
        ("POST", "/core/user/append", {"path": "likes", "value": "tea", "subject": "alex"}),
        ("GET", "/facts?entity=Alex+Smith&depth=2", None),
        ("POST", "/facts", {"subject": "Alex", "relation": "lives_in", "object": "Lisbon"}),
        ("GET", "/episodes?limit=3", None),
        ("POST", "/episodes/close", {"session": "s1"}),
        ("POST", "/reflect", None),
    ]


def test_results_come_as_structured_content_beside_the_text_and_the_server_names_its_version():
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"count": 3})

    server = build_server(AmemApi("http://127.0.0.1:8000", "key", transport=httpx.MockTransport(answer)))

    async def scenario():
        async with Client(server) as client:
            return client.server_info, await client.call_tool("memory_count", {})

    info, result = anyio.run(scenario)
    assert (info.name, info.version) == ("amem", amem_version()) and info.version
    assert result.structured_content == {"count": 3}
    assert json.loads(result.content[0].text) == {"count": 3}


def test_a_missing_or_mistyped_argument_is_named_in_plain_words():
    server = build_server(AmemApi("http://127.0.0.1:8000", "key", transport=httpx.MockTransport(lambda r: None)))

    async def scenario():
        async with Client(server) as client:
            missing = await client.call_tool("memory_search", {})
            mistyped = await client.call_tool("memory_search", {"query": "bike", "limit": "many"})
            return missing, mistyped

    missing, mistyped = anyio.run(scenario)
    assert missing.is_error and missing.content[0].text == "memory_search: query: required"
    assert mistyped.is_error and mistyped.content[0].text.startswith("memory_search: limit: input should be")
    assert "pydantic" not in missing.content[0].text + mistyped.content[0].text
