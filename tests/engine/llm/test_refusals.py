"""A provider that refuses (bad key, rate limit, server error, nobody listening) leaves notes as no key would."""

from __future__ import annotations

import socket

import pytest

from engine.llm.offline import OfflineRules
from engine.llm.types import Candidate, LlmCallRecord
from tests.engine.llm.conftest import MakeLLM
from testsupport.llm_server import FakeLLMServer

TEXT = "We moved the staging database from MySQL to PostgreSQL 16 last week."


@pytest.mark.parametrize("status", [401, 403, 429, 500, 503])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_refused_call_is_answered_by_the_offline_rules(
    status: int,
    provider: str,
    make_llm: MakeLLM,
    offline_rules: OfflineRules,
    fake_llm: FakeLLMServer,
    records: list[LlmCallRecord],
) -> None:
    fake_llm.fail(status)
    llm = make_llm({"AMEM_LLM_PROVIDER": provider, "AMEM_LLM_API_KEY": "sk-wrong"}, offline=offline_rules)
    fields = llm.construct(TEXT)
    # Before: keywords [], tags [], context "", category General.
    assert fields == offline_rules.construct(TEXT)
    assert fields.keywords and fields.tags and fields.context
    (record,) = records
    assert record.outcome == "provider_error"
    assert str(status) in record.error and "answered by offline rules" in record.error


def test_an_unreachable_provider_is_answered_by_the_offline_rules(
    make_llm: MakeLLM, offline_rules: OfflineRules, records: list[LlmCallRecord]
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    llm = make_llm(
        {"AMEM_LLM_PROVIDER": "openai", "AMEM_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1"}, offline=offline_rules
    )
    candidates = [Candidate("n1", TEXT), Candidate("n2", "Lunch was pasta today.")]
    assert llm.construct(TEXT) == offline_rules.construct(TEXT)
    assert llm.judge_links(TEXT, candidates) == offline_rules.judge_links(TEXT, candidates)
    assert llm.crud([("user", TEXT)], []) == offline_rules.crud([("user", TEXT)], [])
    assert [r.outcome for r in records] == ["provider_error"] * 3
    assert all("Connection" in r.error for r in records)
