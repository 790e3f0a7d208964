"""Provider `none`: every role answered by rules, honestly labelled as offline."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from engine.llm.client import LLM
from engine.llm.config import resolve_llm_config
from engine.llm.offline import CATEGORY_ANCHORS, NOTE_TYPE_ANCHORS, OfflineRules
from engine.llm.types import Candidate, CrudOp, EvolveResult, LlmCallRecord, Neighbour, NoteFields
from engine.reading.capture_rules import statements
from engine.reading.merged_text import merged_text
from engine.reading.sentences import first_sentence
from tests.engine.llm.conftest import hash_embed, simple_tokenize
from testsupport.llm_server import FakeLLMServer


@pytest.fixture
def offline_llm(records: list[LlmCallRecord], offline_rules: OfflineRules) -> LLM:
    return LLM(resolve_llm_config({}, {}), recorder=records.append, offline=offline_rules)


def test_no_key_means_every_role_answers_offline_and_is_recorded_as_such(
    offline_llm: LLM,
    records: list[LlmCallRecord],
    caplog: pytest.LogCaptureFixture,
    fake_llm: FakeLLMServer,
) -> None:
    with caplog.at_level(logging.INFO, logger="engine.llm.client"):
        fields = offline_llm.construct("We deployed the API server with a new database connection pool. It was fast.")
        links = offline_llm.judge_links(
            "database connection pool for the API server",
            [Candidate("a", "API server database connection pool"), Candidate("b", "my cat likes fish")],
        )
        evolved = offline_llm.evolve("new", [Neighbour("a", "old")])
        ops = offline_llm.crud([("user", "I prefer green tea over coffee every morning.")], [])
        merge = offline_llm.should_merge("The API uses PostgreSQL.", "Orders are in PostgreSQL 16.")
        judge = offline_llm.evolution_judge("I like tea", "my cat likes fish")
        pairs = offline_llm.conflict_scan(["I am vegetarian", "I loved the steak"])

    assert fields.keywords and fields.context == "We deployed the API server with a new database connection pool."
    assert fields.category == "Technical"
    assert fields.confidence == "low"
    assert links == ["a"]
    assert evolved == EvolveResult()
    assert ops == [CrudOp("NEW", "I prefer green tea over coffee every morning.")]
    assert not merge.should_merge  # two statements: offline, only the same statement merges
    assert judge.verdict == "NEW"
    assert pairs == []
    assert offline_llm.conflict_scan_available is False

    assert [r.role for r in records] == [
        "construct",
        "link",
        "evolve",
        "crud",
        "should_merge",
        "evolution_judge",
        "conflict_scan",
    ]
    assert {r.outcome for r in records} == {"offline"}
    assert {r.provider for r in records} == {"none"}
    assert all(r.error == "" for r in records)
    assert fake_llm.requests == []  # nothing left the process
    messages = [r.getMessage() for r in caplog.records]
    assert "LLM role construct is answered by offline rules (provider none)" in messages
    assert any("outcome=offline" in m for m in messages)


def test_offline_roles_are_announced_once_each(offline_llm: LLM, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="engine.llm.client"):
        offline_llm.construct("first text to remember")
        offline_llm.construct("second text to remember")
    announced = [r for r in caplog.records if "answered by offline rules" in r.getMessage()]
    assert len(announced) == 1


def test_without_offline_rules_provider_none_still_returns_safe_defaults(
    records: list[LlmCallRecord],
) -> None:
    llm = LLM(resolve_llm_config({}, {}), recorder=records.append)
    assert llm.construct("some text here") == NoteFields()
    assert llm.crud([("user", "I like tea a lot")], []) == []
    assert records[0].outcome == "offline" and records[0].error == "no offline rules"


def test_offline_rules_that_crash_degrade_to_the_default(records: list[LlmCallRecord]) -> None:
    def broken_embed(texts: object) -> np.ndarray:
        raise RuntimeError("model missing")

    llm = LLM(
        resolve_llm_config({}, {}),
        recorder=records.append,
        offline=OfflineRules(broken_embed, simple_tokenize),
    )
    assert llm.judge_links("x", [Candidate("a", "x")]) == []
    assert records[0].outcome == "offline" and "model missing" in records[0].error


def test_offline_strong_tier_with_a_real_fast_tier_reports_conflict_scan_unavailable(
    offline_rules: OfflineRules,
) -> None:
    config = resolve_llm_config({"ANTHROPIC_API_KEY": "k", "AMEM_LLM_STRONG_PROVIDER": "none"}, {})
    llm = LLM(config, offline=offline_rules)
    assert not llm.is_offline("construct") and llm.is_offline("conflict_scan")
    assert llm.conflict_scan_available is False
    assert LLM(resolve_llm_config({"ANTHROPIC_API_KEY": "k"}, {})).conflict_scan_available


# ---------------------------------------------------------------- the rules themselves


def test_keywords_drop_stop_words_and_prefer_repeated_terms(offline_rules: OfflineRules) -> None:
    words = offline_rules.keywords("The Qdrant index and the Qdrant shard are in the var folder", 7)
    assert words[0] == "Qdrant"  # the author's casing, not the token's
    lowered = [w.lower() for w in words]
    assert "the" not in lowered and "and" not in lowered and "are" not in lowered


def test_keywords_that_overlap_a_better_keyword_are_skipped() -> None:
    rules = OfflineRules(hash_embed, lambda text: ["数据库", "数据", "据库", "迁移", "数据库"])
    assert rules.keywords("我们迁移了数据库", 7) == ["数据库", "迁移"]


def test_chinese_text_gets_keywords_and_a_chinese_context(offline_rules: OfflineRules) -> None:
    fields = offline_rules.construct("我们把数据库迁移到了新的服务器。下周再测试性能。")
    assert fields.keywords
    assert all(len(k) >= 2 for k in fields.keywords)
    assert fields.context == "我们把数据库迁移到了新的服务器。"
    assert 2 <= len(fields.tags) <= 4 or len(fields.keywords) < 2


def test_context_is_the_first_sentence_truncated(offline_rules: OfflineRules) -> None:
    assert first_sentence("One. Two.") == "One."
    long = "word " * 100
    assert len(first_sentence(long)) == 200 and first_sentence(long).endswith("…")


def test_category_and_note_type_follow_the_anchor_descriptions(offline_rules: OfflineRules) -> None:
    # The hashed test embedder only sees shared words, so these texts reuse anchor words.
    assert offline_rules.construct("Her family, friends and hobbies: she likes green tea").category == "Personal"
    assert (
        offline_rules.construct("A customer signed a sales contract with pricing and an invoice").category == "Business"
    )
    assert offline_rules.construct("The server crashed with a database error in production").category == "Technical"
    assert offline_rules.construct("zebra quantum xylophone").category == "General"
    knowledge = offline_rules.construct("A general definition that explains how a concept works")
    assert knowledge.note_type == "knowledge" and knowledge.topics
    assert knowledge.category == "General"  # Business/Project are too close to call
    assert offline_rules.construct("Yesterday we met and decided to use Qdrant").note_type == "memory"


def test_link_threshold_is_a_parameter() -> None:
    loose = OfflineRules(hash_embed, simple_tokenize, link_threshold=0.0)
    strict = OfflineRules(hash_embed, simple_tokenize, link_threshold=0.99)
    candidates = [Candidate("a", "tea in the morning"), Candidate("b", "tea")]
    assert loose.judge_links("green tea in the morning", candidates) == ["a", "b"]
    assert strict.judge_links("green tea in the morning", candidates) == []


def test_a_merged_text_deduplicates_identical_sentences() -> None:
    assert merged_text("A fact. Another.", "A fact. New detail.") == "A fact. Another. New detail."
    assert merged_text("Same text.", "same text") == "Same text."


def test_judge_expands_near_identical_notes_with_both_sentences(offline_rules: OfflineRules) -> None:
    judgement = offline_rules.evolution_judge("I like green tea.", "I like green tea!")
    assert judgement.verdict == "EXPAND"
    assert judgement.merged_content == "I like green tea."


def test_crud_skips_chitchat_questions_ephemera_and_known_facts(offline_rules: OfflineRules) -> None:
    dialogue = [
        ("user", "thanks, ok"),
        ("user", "What is the weather like?"),
        ("user", "TODO tomorrow: run the job"),
        ("user", "I prefer green tea over coffee."),
        ("assistant", "The assistant said something long enough."),
        ("user", "My manager is called Dana."),
    ]
    ops = offline_rules.crud(dialogue, ["I prefer green tea over coffee"])
    assert ops == [CrudOp("NEW", "My manager is called Dana.")]


def test_crud_keeps_at_most_three_ops(offline_rules: OfflineRules) -> None:
    dialogue = [("user", f"My fact number {word} is durable.") for word in ("one", "two", "three", "four")]
    assert len(offline_rules.crud(dialogue, [])) == 3


def test_durability_rules() -> None:
    assert statements("I switched to Neovim last year.")
    assert not statements("short")
    assert not statements("谢谢，好的")
    assert not statements("Can you check the logs")
    assert not statements("那个脚本待跑，明天再说")


def test_anchors_are_embedded_once(offline_rules: OfflineRules) -> None:
    calls: list[int] = []

    def counting_embed(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return hash_embed(texts)

    rules = OfflineRules(counting_embed, simple_tokenize)
    rules.construct("first text here")
    rules.construct("second text here")
    anchors = sum(len(v) for v in CATEGORY_ANCHORS.values()) + sum(len(v) for v in NOTE_TYPE_ANCHORS.values())
    assert calls == [1, anchors, 1]
