"""A value nested 10,000 deep against the real server (gunicorn): 400 with the limit named, no traceback."""

from __future__ import annotations

import pytest

from engine import json_limits


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [500, 900, 1_400, 10_000])
def test_a_nested_core_value_is_a_400_never_a_500(server, depth):
    body = f'{{"path": "x", "value": {nested(depth)}}}'.encode()
    answer = server.call("POST", "/api/v1/core/x/replace", body)
    assert answer.status == 400, answer.body
    assert f"the limit is {json_limits.MAX_BODY_DEPTH}" in answer.body["detail"]
    assert server.call("GET", "/api/v1/core/x").status == 404  # nothing written
    assert "Traceback" not in server.read_log() and "RecursionError" not in server.read_log()
