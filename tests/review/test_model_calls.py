"""The dashboard's model-call summary: per-role cost and a line when steps fell back to the offline rules."""

from __future__ import annotations

import pytest

from memories.models import LlmCall

pytestmark = pytest.mark.django_db


def _call(role: str, outcome: str, agent: str = "alice", tokens: tuple[int, int] = (0, 0), latency: int = 0) -> None:
    LlmCall.objects.create(
        role=role,
        tier="fast",
        provider="openai",
        model="m",
        outcome=outcome,
        agent_id=agent,
        tokens_in=tokens[0],
        tokens_out=tokens[1],
        latency_ms=latency,
    )


def test_the_dashboard_shows_cost_per_role_and_says_when_calls_fell_back(rclient, alice, make_note) -> None:
    make_note(alice, "Alice keeps her bicycle in the garden shed.")
    _call("construct", "ok", tokens=(300, 60), latency=800)
    _call("construct", "provider_error", latency=100)
    _call("link", "parse_error", tokens=(200, 10), latency=400)
    _call("construct", "provider_error", agent="bob")  # not this reviewer's agent
    response = rclient.get("/review/")
    model = response.context["model"]
    roles = {r["role"]: r for r in model["roles"]}
    assert (roles["construct"]["calls"], roles["construct"]["fell_back"]) == (2, 1)
    assert (roles["link"]["calls"], roles["link"]["fell_back"]) == (1, 1)
    assert roles["construct"]["tokens_in"] == 150 and roles["construct"]["latency_ms"] == 450
    assert model["fell_back"] == 2
    assert (model["writes"], model["calls_per_write"], model["tokens_per_write"]) == (1, 3.0, 570)
    assert b"2 model calls fell back to the offline rules" in response.content
    assert b"Model calls, last 24 hours" in response.content


def test_no_fallback_line_when_every_call_was_answered(rclient, alice) -> None:
    _call("construct", "ok", tokens=(300, 60))
    _call("crud", "offline")
    response = rclient.get("/review/")
    assert response.context["model"]["fell_back"] == 0
    assert b"fell back to the offline rules" not in response.content
    assert b"Model calls, last 24 hours" in response.content
