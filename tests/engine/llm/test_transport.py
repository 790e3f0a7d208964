"""Provider wire behaviour through the real SDKs against the fake server (B084–B099, B107)."""

from __future__ import annotations

import json

import pytest

from engine.llm.config import PLACEHOLDER_KEY, resolve_llm_config
from engine.llm.providers import ClientPool, openai_token_params, token_budget
from engine.llm.types import LlmCallRecord, NoteFields
from tests.engine.llm.conftest import MakeLLM
from testsupport.llm_server import FakeLLMServer

NOTE = {
    "keywords": ["postgres", "pgbouncer", "pool"],
    "tags": ["database", "ops"],
    "context": "The team added PgBouncer.",
    "category": "Technical",
    "note_type": "memory",
    "topics": [],
    "confidence": "high",
}
KEY = {"ANTHROPIC_API_KEY": "sk-ant-test"}


def test_default_provider_is_anthropic_messages_with_one_user_message(
    make_llm: MakeLLM, fake_llm: FakeLLMServer
) -> None:
    # B087
    fake_llm.reply("  \n" + json.dumps(NOTE) + "\n  ", role="construct")
    fields = make_llm(KEY).construct("We put PgBouncer in front of Postgres.")
    assert fields.keywords == ["postgres", "pgbouncer", "pool"]
    (request,) = fake_llm.requests
    assert request.path == "/v1/messages"
    assert request.body["model"] == "claude-sonnet-4-6"
    assert request.body["max_tokens"] == 400
    assert len(request.body["messages"]) == 1
    assert request.body["messages"][0]["role"] == "user"
    assert "We put PgBouncer in front of Postgres." in request.prompt


def test_openai_provider_uses_chat_completions_with_max_tokens(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B088
    fake_llm.reply_json(NOTE, role="construct")
    make_llm({"AMEM_LLM_PROVIDER": "openai"}).construct("anything worth noting")
    (request,) = fake_llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "gpt-4o-mini"
    assert request.body["max_tokens"] == 400
    assert "max_completion_tokens" not in request.body


def test_base_url_and_key_from_env_reach_the_openai_client(fake_llm: FakeLLMServer, pool: ClientPool) -> None:
    # B089 / B091
    from engine.llm.client import LLM

    env = {
        "AMEM_LLM_PROVIDER": "openai",
        "AMEM_LLM_BASE_URL": fake_llm.openai_base_url,
        "OPENAI_API_KEY": "sk-real-openai",
    }
    fake_llm.reply_json(NOTE)
    LLM(resolve_llm_config(env, {"max_retries": 0}), clients=pool).construct("some text here")
    (request,) = fake_llm.requests
    assert "sk-real-openai" in request.headers.get("authorization", "")


def test_no_key_anywhere_sends_the_placeholder_key(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B090
    fake_llm.reply_json(NOTE)
    make_llm({"AMEM_LLM_PROVIDER": "openai"}).construct("some text here")
    (request,) = fake_llm.requests
    assert request.headers.get("authorization") == f"Bearer {PLACEHOLDER_KEY}"


@pytest.mark.parametrize(
    ("model", "param"),
    [
        ("o3-mini", "max_completion_tokens"),
        ("o1", "max_completion_tokens"),
        ("gpt-5-mini", "max_completion_tokens"),
        ("deepseek-reasoner", "max_tokens"),
        ("gpt-4o-mini", "max_tokens"),
        ("omni-model", "max_tokens"),
    ],
)
def test_reasoning_models_get_max_completion_tokens(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, model: str, param: str
) -> None:
    # B092
    fake_llm.reply_json(NOTE)
    make_llm({"AMEM_LLM_PROVIDER": "openai", "AMEM_LLM_MODEL": model}).construct("some text here")
    body = fake_llm.requests[0].body
    assert body[param] == 400
    other = {"max_tokens", "max_completion_tokens"} - {param}
    assert not other & set(body)


def test_gemini_and_pro_agent_models_get_eight_times_the_budget_or_4000() -> None:
    assert token_budget("gemini-2.5-flash", 400) == 4000
    assert token_budget("my-pro-agent", 600) == 4800
    assert token_budget("claude-sonnet-4-6", 400) == 400
    assert openai_token_params("gemini-2.5-pro", 300) == {"max_tokens": 4000}


def test_gemini_budget_reaches_the_wire(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    fake_llm.reply_json(NOTE)
    make_llm({"AMEM_LLM_PROVIDER": "openai", "AMEM_LLM_MODEL": "gemini-2.5-flash"}).construct("some text here")
    assert fake_llm.requests[0].body["max_tokens"] == 4000


def test_provider_value_with_trailing_space_routes_to_openai(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B093
    fake_llm.reply_json(NOTE)
    make_llm({"AMEM_LLM_PROVIDER": "openai "}).construct("some text here")
    assert fake_llm.requests[0].path == "/v1/chat/completions"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_provider_error_degrades_to_the_safe_default_and_is_recorded(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord], provider: str
) -> None:
    # B094
    fake_llm.fail(500)
    fields = make_llm({"AMEM_LLM_PROVIDER": provider, **KEY}).construct("some text here")
    assert fields == NoteFields()
    (record,) = records
    assert record.outcome == "provider_error"
    assert "500" in record.error or "InternalServerError" in record.error


def test_connection_refused_degrades_to_the_safe_default(records: list[LlmCallRecord], pool: ClientPool) -> None:
    from engine.llm.client import LLM

    env = {**KEY, "AMEM_LLM_BASE_URL": "http://127.0.0.1:9"}  # discard port: nothing listens
    result = LLM(resolve_llm_config(env, {"max_retries": 0}), recorder=records.append, clients=pool)
    assert result.should_merge("a", "b").should_merge is False
    assert records[0].outcome == "provider_error"


def test_a_slow_provider_times_out_into_the_safe_default(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    fake_llm.reply(json.dumps([{"a": 0, "b": 1}]), held=True)  # never answered: only the timeout ends the call
    llm = make_llm({**KEY, "AMEM_LLM_TIMEOUT": "300ms"})
    assert llm.conflict_scan(["I am vegetarian", "I ate steak"]) == []
    (record,) = records
    assert record.outcome == "provider_error"
    assert "Timeout" in record.error
    assert record.latency_ms >= 300  # it waited for the timeout (a loaded machine only waits longer)


def test_timeout_reaches_the_sdk_client(make_llm: MakeLLM, pool: ClientPool) -> None:
    # B084 / B085
    llm = make_llm({**KEY, "AMEM_LLM_TIMEOUT": "5"})
    assert pool.get(llm.config.fast).timeout == 5.0
    llm = make_llm(KEY)
    assert pool.get(llm.config.fast).timeout == 30.0


def test_configured_base_url_reaches_the_client_and_changing_it_rebuilds_it(
    fake_llm: FakeLLMServer, pool: ClientPool
) -> None:
    # B099
    first = resolve_llm_config(KEY, {"base_url": fake_llm.url, "max_retries": 0})
    second = resolve_llm_config(KEY, {"base_url": "http://127.0.0.1:1", "max_retries": 0})
    client_a = pool.get(first.fast)
    client_b = pool.get(second.fast)
    assert str(client_a.base_url).rstrip("/") == fake_llm.url
    assert str(client_b.base_url).rstrip("/") == "http://127.0.0.1:1"
    assert client_a is not client_b


def test_calls_to_one_endpoint_reuse_one_client(make_llm: MakeLLM, fake_llm: FakeLLMServer, pool: ClientPool) -> None:
    # B107
    fake_llm.always(json.dumps(NOTE))
    llm = make_llm(KEY)
    llm.construct("first text here")
    llm.construct("second text here")
    assert len(pool) == 1
    other = make_llm({**KEY, "AMEM_LLM_PROVIDER": "openai"})
    other.construct("third text here")
    assert len(pool) == 2
    assert len(fake_llm.requests) == 3


def test_usage_tokens_and_latency_are_recorded(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    fake_llm.reply(json.dumps(NOTE), tokens_in=123, tokens_out=45)
    make_llm(KEY).construct("some text here", agent_id="agent-7")
    (record,) = records
    assert (record.tokens_in, record.tokens_out) == (123, 45)
    assert record.latency_ms >= 0
    assert record.outcome == "ok"
    assert record.agent_id == "agent-7"
    assert (record.role, record.tier, record.provider, record.model) == (
        "construct",
        "fast",
        "anthropic",
        "claude-sonnet-4-6",
    )
    assert record.created_at is not None and record.created_at.tzinfo is not None


def test_a_failing_recorder_never_breaks_the_call(fake_llm: FakeLLMServer, pool: ClientPool) -> None:
    from engine.llm.client import LLM

    def broken(record: LlmCallRecord) -> None:
        raise RuntimeError("database is down")

    fake_llm.reply_json(NOTE)
    config = resolve_llm_config({**KEY, "AMEM_LLM_BASE_URL": fake_llm.url}, {"max_retries": 0})
    fields = LLM(config, recorder=broken, clients=pool).construct("some text here")
    assert fields.keywords == NOTE["keywords"]
