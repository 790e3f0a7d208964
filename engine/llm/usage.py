"""What one request cost in model calls, from the records the LLM made while it ran.

The API wraps a write in ``recorded_calls()`` (engine/llm/client.py) and reports two things
from those records: which steps the model failed, so the offline rules answered them
(always, as ``fell_back``), and, on request, the calls, tokens and latency per role.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.llm.types import LlmCallRecord

FELL_BACK = ("parse_error", "provider_error")


def fell_back(records: Iterable[LlmCallRecord]) -> list[str]:
    """The roles the offline rules answered because the model failed them (refused, unusable, timed out)."""
    return sorted({r.role for r in records if r.outcome in FELL_BACK})


def cost(records: Iterable[LlmCallRecord]) -> dict[str, Any]:
    """Totals and per-role figures: calls, prompt and completion tokens, latency, outcomes.

    Offline answers count as calls with outcome ``offline`` and no tokens: they cost no model,
    but the caller sees that a step ran on the rules.
    """
    roles: dict[str, dict[str, Any]] = {}
    for r in records:
        row = roles.setdefault(r.role, {"calls": 0, "tokens_in": 0, "tokens_out": 0, "latency_ms": 0, "outcomes": {}})
        row["calls"] += 1
        row["tokens_in"] += r.tokens_in
        row["tokens_out"] += r.tokens_out
        row["latency_ms"] += r.latency_ms
        row["outcomes"][r.outcome] = row["outcomes"].get(r.outcome, 0) + 1
    return {
        "calls": sum(row["calls"] for row in roles.values()),
        "tokens_in": sum(row["tokens_in"] for row in roles.values()),
        "tokens_out": sum(row["tokens_out"] for row in roles.values()),
        "latency_ms": sum(row["latency_ms"] for row in roles.values()),
        "roles": dict(sorted(roles.items())),
    }
