"""A refusing provider leaves notes as no provider would, and the write says so; ?include=cost shows the calls."""

from __future__ import annotations

import pytest

from engine import runtime
from memories.models import LlmCall, Note
from testsupport.llm_server import FakeLLMServer

TEXT = "We moved the staging database from MySQL to PostgreSQL 16 last week."
CONSTRUCTED = {
    "keywords": ["staging", "PostgreSQL 16", "MySQL"],
    "tags": ["database", "migration"],
    "context": "Staging now runs PostgreSQL 16.",
    "category": "Technical",
    "note_type": "memory",
    "topics": [],
    "confidence": "high",
    "importance": 6,
    "facts": [],
}


@pytest.mark.parametrize("status", [401, 429, 503])
def test_a_refusing_provider_writes_the_offline_notes_and_says_it_fell_back(
    status: int, as_alice, provider: FakeLLMServer
) -> None:
    provider.always("")  # nothing usable even if a request got through
    for _ in range(3):
        provider.fail(status)
    response = as_alice.post("/memories", {"text": TEXT})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["fell_back"] == ["construct"]
    assert "cost" not in body  # only on request
    note = Note.objects.get(pk=body["id"])
    offline = runtime.llm().offline
    assert offline is not None
    expected = offline.construct(TEXT)
    # Before: keywords [], tags [], context "", category General.
    assert (note.keywords, note.tags, note.context, note.category) == (
        expected.keywords,
        expected.tags,
        expected.context,
        expected.category,
    )
    assert note.keywords and note.tags and note.context
    (call,) = LlmCall.objects.filter(role="construct")
    assert call.outcome == "provider_error" and str(status) in call.error


def test_a_turn_against_a_refusing_provider_still_stores_the_durable_fact(as_alice, provider: FakeLLMServer) -> None:
    provider.always("")
    provider.fail(401, role="crud")
    provider.fail(401, role="construct")
    response = as_alice.post("/turns", {"messages": [{"role": "user", "content": TEXT}]})
    assert response.status_code == 200, response.content
    body = response.json()
    assert [(op["action"], op["status"]) for op in body["ops"]] == [("NEW", "applied")]
    assert body["fell_back"] == ["construct", "crud"]
    assert Note.objects.get(pk=body["ops"][0]["note_id"]).keywords


def test_include_cost_reports_calls_tokens_and_latency_per_role(as_alice, provider: FakeLLMServer) -> None:
    provider.reply_json(CONSTRUCTED, role="construct")
    response = as_alice.post("/memories?include=cost", {"text": TEXT})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["fell_back"] == []
    cost = body["cost"]
    construct = cost["roles"]["construct"]
    assert (construct["calls"], construct["tokens_in"], construct["tokens_out"]) == (1, 11, 7)  # the fake's usage
    assert construct["outcomes"] == {"ok": 1}
    assert construct["latency_ms"] >= 0
    assert (cost["calls"], cost["tokens_in"], cost["tokens_out"]) == (1, 11, 7)


def test_include_cost_on_a_turn_counts_every_step(as_alice, provider: FakeLLMServer) -> None:
    provider.reply_json([{"action": "NEW", "fact": TEXT}], role="crud")
    provider.reply_json(CONSTRUCTED, role="construct")
    body = as_alice.post("/turns?include=cost", {"messages": [{"role": "user", "content": TEXT}]}).json()
    assert set(body["cost"]["roles"]) == {"crud", "construct"}
    assert body["cost"]["calls"] == 2 and body["fell_back"] == []


def test_offline_mode_reports_rule_answers_at_no_token_cost(as_alice) -> None:
    body = as_alice.post("/memories?include=cost", {"text": TEXT}).json()
    assert body["fell_back"] == []  # offline by configuration is not a fallback
    assert body["cost"]["roles"]["construct"]["outcomes"] == {"offline": 1}
    assert body["cost"]["tokens_in"] == body["cost"]["tokens_out"] == 0


def test_an_unknown_include_is_refused_and_writes_nothing(as_alice, snapshot) -> None:
    before = snapshot()
    response = as_alice.post("/memories?include=everything", {"text": TEXT})
    assert response.status_code == 400
    assert snapshot() == before
