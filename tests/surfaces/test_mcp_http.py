"""The remote MCP endpoint's gate, in-process: Origin, method and key are checked before MCP is.

tests/live/test_mcp_http.py drives the tools with the MCP SDK's client against a real server.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from engine.errors import IndexUnavailable, NotFound, PermissionDenied
from memories.models import ApiKey
from surfaces import mcp_http
from tests.surfaces.test_mcp import TOOLS

LIST_TOOLS = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
ACCEPT = "application/json, text/event-stream"


def post(**headers: str):
    return Client().post(
        "/mcp", data=LIST_TOOLS, content_type="application/json", headers={"Accept": ACCEPT, **headers}
    )


@pytest.fixture
def key(alice) -> str:
    return ApiKey.issue(alice)[1]


def test_a_key_gets_the_tools_of_amem_mcp(key):
    answer = post(Authorization=f"Bearer {key}")
    assert answer.status_code == 200, answer.content
    assert {tool["name"] for tool in answer.json()["result"]["tools"]} == TOOLS


def test_no_key_or_an_unknown_one_is_401(db):
    for headers in ({}, {"Authorization": "Bearer amem_nope"}):
        answer = post(**headers)
        assert answer.status_code == 401 and answer["WWW-Authenticate"] == "Bearer"


def test_an_origin_is_answered_only_when_listed(key, settings):
    refused = post(Authorization=f"Bearer {key}", Origin="http://evil.example")
    assert refused.status_code == 403 and "AMEM_MCP_ALLOWED_ORIGINS" in refused.json()["detail"]
    settings.AMEM_MCP_ALLOWED_ORIGINS = ["https://app.example.com"]
    assert post(Authorization=f"Bearer {key}", Origin="https://app.example.com").status_code == 200


def test_only_post_is_served(key):
    for method in ("get", "delete", "put"):
        answer = getattr(Client(), method)("/mcp", headers={"Authorization": f"Bearer {key}", "Accept": ACCEPT})
        assert answer.status_code == 405 and answer["Allow"] == "POST"


@pytest.mark.parametrize(
    ("error", "status", "said"),
    [
        (NotFound("no such agent"), 404, "no such agent"),
        (PermissionDenied("agent 'x' is deactivated"), 403, "deactivated"),
        (IndexUnavailable("qdrant at 10.0.0.9 refused"), 503, "a backing service is unavailable"),
    ],
)
def test_a_refused_key_gets_the_apis_status(db, monkeypatch, error, status, said):
    # One table (engine/errors.py): remote MCP once answered 503 for all but 400 and 403.
    def refuse(self, request):
        raise error

    monkeypatch.setattr(mcp_http.AgentKey, "__call__", refuse)
    answer = post(Authorization="Bearer amem_anything")
    assert answer.status_code == status and said in answer.json()["detail"]
    assert "10.0.0.9" not in answer.content.decode()  # a server fault names no detail
