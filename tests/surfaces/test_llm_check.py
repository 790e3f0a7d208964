"""amem_llm_check and LLM call accounting through the runtime (real SDK, fake server)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from engine import runtime
from memories.models import LlmCall
from testsupport.fake_runtime import point_llm_at


@pytest.fixture
def fresh_llm():
    runtime.reset_llm()
    yield
    runtime.reset_llm()


def check() -> str:
    out = StringIO()
    call_command("amem_llm_check", stdout=out)
    return out.getvalue()


def test_without_a_key_both_tiers_answer_offline_and_say_so(db, settings, fresh_llm):
    settings.AMEM_LLM_ENV = {}
    out = check()
    assert "fast   none/offline-rules: offline" in out
    assert "strong none/offline-rules: offline" in out
    assert "offline rules answered" in out
    assert sorted(LlmCall.objects.values_list("role", "outcome")) == [
        ("construct", "offline"),
        ("should_merge", "offline"),
    ]


def test_each_tier_reaches_its_model_and_every_call_is_accounted(db, settings, provider):
    server = provider
    point_llm_at(settings, server, AMEM_LLM_MODEL="cheap-1", AMEM_LLM_STRONG_MODEL="strong-1")
    server.reply_json(
        {
            "keywords": ["sync", "tuesday", "team"],
            "tags": ["meeting", "schedule"],
            "context": "Sync moved.",
            "category": "Project",
            "note_type": "memory",
            "topics": [],
            "confidence": "high",
        },
        role="construct",
    )
    server.reply_json({"shouldMerge": True, "merged": "Alex drinks flat whites."}, role="should_merge")
    out = check()
    assert [r.model for r in server.requests] == ["cheap-1", "strong-1"]
    assert "fast   openai/cheap-1: ok" in out and "strong openai/strong-1: ok" in out
    calls = {c.role: c for c in LlmCall.objects.all()}
    assert calls["construct"].tier == "fast" and calls["should_merge"].tier == "strong"
    assert calls["construct"].tokens_in == 11 and calls["construct"].tokens_out == 7


def test_a_failing_provider_is_reported_and_exits_non_zero(db, provider):
    provider.fail(500)
    provider.fail(500)
    with pytest.raises(SystemExit):
        check()
    assert LlmCall.objects.filter(outcome="provider_error").exists()
