"""Nested JSON through the API (django's test client, the whole middleware stack): 400, never a 500."""

from __future__ import annotations

import pytest

from engine import json_limits
from memories.models import CoreBlock, Note

DEPTHS = [json_limits.MAX_BODY_DEPTH + 1, 500, 900, 1_400, 10_000, 100_000]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_core_value_nested_deep_is_a_400_naming_the_limit(as_alice, depth):
    for action in ("replace", "append"):
        response = as_alice.post(f"/core/user/{action}", f'{{"path": "pets", "value": {nested(depth - 1)}}}')
        assert response.status_code == 400, response.content
        assert "levels deep; the limit is" in response.json()["detail"]
    assert not CoreBlock.objects.exists()


@pytest.mark.parametrize("depth", [10_000])
def test_every_json_route_refuses_a_deep_body(as_alice, store, depth):
    deep = nested(depth)
    for path in ("/memories", "/memories/episodic", "/memories/search", "/facts", "/turns", "/conversations"):
        response = as_alice.post(path, f'{{"text": {deep}}}')
        assert response.status_code == 400, (path, response.content)
    assert as_alice.patch("/memories/00000000-0000-0000-0000-000000000000", deep).status_code == 400
    assert not Note.objects.exists()


def test_a_value_at_the_limit_is_kept(as_alice):
    value = nested(json_limits.MAX_DEPTH)
    response = as_alice.post("/core/user/replace", f'{{"path": "", "value": {value}}}')
    assert response.status_code == 200, response.content


def test_a_long_path_cannot_nest_a_value_past_the_limit(as_alice):
    path = ".".join(["a"] * 60)
    response = as_alice.post("/core/user/replace", f'{{"path": "{path}", "value": {nested(10)}}}')
    assert response.status_code == 400 and "the block nests" in response.json()["detail"]
    assert not CoreBlock.objects.exists()
