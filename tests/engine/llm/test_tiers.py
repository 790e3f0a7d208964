"""Each role reaches the right tier, model, endpoint and prompt locale (B102–B108)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from engine.llm.client import LLM
from engine.llm.config import resolve_llm_config
from engine.llm.providers import ClientPool
from engine.llm.types import Candidate, LlmCallRecord, Neighbour
from tests.engine.llm.conftest import MakeLLM
from testsupport.llm_server import FakeLLMServer

KEY = {"ANTHROPIC_API_KEY": "sk-ant-test"}
TIERED = {**KEY, "AMEM_LLM_MODEL": "cheap-1", "AMEM_LLM_STRONG_MODEL": "strong-1"}

# role -> (call, a valid reply, a phrase only the zh prompt contains)
ROLE_CALLS: dict[str, tuple[Callable[[LLM], Any], Any, str]] = {
    "construct": (
        lambda llm: llm.construct("我们把数据库迁移到了 PostgreSQL 16。"),
        {"keywords": ["PostgreSQL"], "tags": ["数据库", "迁移"], "context": "数据库迁移。"},
        "长期记忆库",
    ),
    "link": (
        lambda llm: llm.judge_links("新笔记", [Candidate("n1", "旧笔记")]),
        {"links": ["n1"]},
        "候选笔记",
    ),
    "evolve": (
        lambda llm: llm.evolve("新笔记", [Neighbour("n1", "旧笔记")]),
        {"updates": [], "suggested_connections": ["n1"]},
        "邻居笔记",
    ),
    "crud": (
        lambda llm: llm.crud([("user", "我下个月搬到柏林去工作。")], []),
        [{"action": "NEW", "fact": "用户下个月搬到柏林工作。"}],
        "已有记忆",
    ),
    "should_merge": (
        lambda llm: llm.should_merge("接口使用 PostgreSQL。", "接口用 PostgreSQL 16。"),
        {"should_merge": False},
        "笔记 A",
    ),
    "evolution_judge": (
        lambda llm: llm.evolution_judge("旧的事实。", "新的事实。"),
        {"verdict": "NEW", "reason": "无关"},
        "已有笔记",
    ),
    "conflict_scan": (
        lambda llm: llm.conflict_scan(["我吃素。", "我昨晚吃了牛排。"]),
        [],
        "累加事实",
    ),
    "episode": (
        lambda llm: llm.episode(["我们决定周五坐火车去波尔图。", "酒店还没订。"]),
        {"summary": "决定坐火车去波尔图。", "decisions": ["坐火车"], "open_items": ["订酒店"], "mood": "positive"},
        "长期记忆写一份总结",
    ),
    "reflect": (
        lambda llm: llm.reflect(["用户喜欢绿茶。", "用户又买了绿茶。"]),
        {"reflection": "用户经常提到绿茶。", "cites": [0, 1]},
        "做一次回顾",
    ),
}
EXPECTED_TIER = {
    "construct": "fast",
    "link": "fast",
    "evolve": "fast",
    "crud": "fast",
    "should_merge": "strong",
    "evolution_judge": "strong",
    "conflict_scan": "strong",
    "episode": "fast",
    "reflect": "strong",
}


@pytest.mark.parametrize("role", list(ROLE_CALLS))
def test_each_role_reaches_its_tier_model_and_the_zh_prompt(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord], role: str
) -> None:
    call, reply, zh_phrase = ROLE_CALLS[role]
    fake_llm.reply(json.dumps(reply, ensure_ascii=False), role=role)
    call(make_llm({**TIERED, "AMEM_PROMPT_LOCALE": "zh"}))
    (request,) = fake_llm.requests
    assert request.role == role
    expected_model = "strong-1" if EXPECTED_TIER[role] == "strong" else "cheap-1"
    assert request.model == expected_model
    assert zh_phrase in request.prompt
    (record,) = records
    assert (record.role, record.tier, record.model, record.outcome) == (
        role,
        EXPECTED_TIER[role],
        expected_model,
        "ok",
    )


@pytest.mark.parametrize("role", list(ROLE_CALLS))
def test_each_role_uses_the_english_prompt_by_default(make_llm: MakeLLM, fake_llm: FakeLLMServer, role: str) -> None:
    call, reply, zh_phrase = ROLE_CALLS[role]
    fake_llm.reply(json.dumps(reply, ensure_ascii=False), role=role)
    call(make_llm(TIERED))
    prompt = fake_llm.requests[0].prompt
    assert zh_phrase not in prompt
    assert "Return" in prompt


def test_fast_roles_use_cheap_and_merge_and_judge_use_strong(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B102
    fake_llm.always("{}")
    llm = make_llm(TIERED)
    llm.construct("some text here")
    llm.judge_links("some text", [Candidate("a", "other")])
    llm.should_merge("a", "b")
    llm.evolution_judge("a", "b")
    assert [(r.role, r.model) for r in fake_llm.requests] == [
        ("construct", "cheap-1"),
        ("link", "cheap-1"),
        ("should_merge", "strong-1"),
        ("evolution_judge", "strong-1"),
    ]


@pytest.mark.parametrize(("role_value", "model"), [("", "cheap-1"), ("strong", "strong-1")])
def test_crud_uses_fast_by_default_and_strong_on_request(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, role_value: str, model: str
) -> None:
    # B103
    fake_llm.always("[]")
    make_llm({**TIERED, "AMEM_LLM_CRUD_ROLE": role_value}).crud([("user", "remember this please")], [])
    assert fake_llm.requests[0].model == model


def test_without_a_strong_model_strong_calls_use_the_fast_model(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B104
    fake_llm.always("{}")
    make_llm({**KEY, "AMEM_LLM_MODEL": "cheap-1"}).should_merge("a", "b")
    assert fake_llm.requests[0].model == "cheap-1"


def test_only_a_strong_model_keeps_provider_and_endpoint(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B105
    fake_llm.always("{}")
    llm = make_llm({"AMEM_LLM_PROVIDER": "openai", "AMEM_LLM_STRONG_MODEL": "strong-1"})
    llm.construct("some text here")
    llm.evolution_judge("a", "b")
    assert [(r.path, r.model) for r in fake_llm.requests] == [
        ("/v1/chat/completions", "gpt-4o-mini"),
        ("/v1/chat/completions", "strong-1"),
    ]


def test_all_three_strong_fields_send_the_tiers_to_different_providers_and_endpoints(
    records: list[LlmCallRecord], pool: ClientPool
) -> None:
    # B106
    with FakeLLMServer() as fast_server, FakeLLMServer() as strong_server:
        fast_server.always("{}")
        strong_server.always("{}")
        env = {
            **KEY,
            "AMEM_LLM_BASE_URL": fast_server.anthropic_base_url,
            "AMEM_LLM_STRONG_PROVIDER": "openai",
            "AMEM_LLM_STRONG_MODEL": "strong-1",
            "AMEM_LLM_STRONG_BASE_URL": strong_server.openai_base_url,
        }
        llm = LLM(resolve_llm_config(env, {"max_retries": 0}), recorder=records.append, clients=pool)
        llm.construct("some text here")
        llm.should_merge("a", "b")
        assert [(r.path, r.model) for r in fast_server.requests] == [("/v1/messages", "claude-sonnet-4-6")]
        assert [(r.path, r.model) for r in strong_server.requests] == [("/v1/chat/completions", "strong-1")]
        assert len(pool) == 2  # B107: a second endpoint gets a second client
        assert [(r.provider, r.tier) for r in records] == [("anthropic", "fast"), ("openai", "strong")]


def test_configured_strong_block_reaches_the_server(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B108
    fake_llm.always("{}")
    llm = make_llm(KEY, {"model": "cheap-1", "strong": {"model": "strong-cfg"}})
    llm.evolution_judge("a", "b")
    llm.construct("some text here")
    assert [r.model for r in fake_llm.requests] == ["strong-cfg", "cheap-1"]


def test_configured_model_reaches_the_server_and_env_wins(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B095 / B096 over the wire
    fake_llm.always("{}")
    make_llm(KEY, {"model": "cfg-model"}).construct("some text here")
    make_llm({**KEY, "AMEM_LLM_MODEL": "env-model"}, {"model": "cfg-model"}).construct("more text")
    assert [r.model for r in fake_llm.requests] == ["cfg-model", "env-model"]
