"""Defensive reply parsing (B079–B083), unit level and through the SDKs."""

from __future__ import annotations

import json

import pytest

from engine.llm.parse import clean_reply, parse_reply, validate_note_fields
from engine.llm.types import LlmCallRecord, NoteFields
from tests.engine.llm.conftest import MakeLLM
from testsupport.llm_server import FakeLLMServer

KEY = {"ANTHROPIC_API_KEY": "sk-ant-test"}
REAL = {
    "keywords": ["qdrant", "vector", "index"],
    "tags": ["search", "infra"],
    "context": "Qdrant holds the vector index.",
    "category": "Technical",
}


def test_think_block_with_a_json_draft_is_ignored_in_favour_of_the_real_json(
    make_llm: MakeLLM, fake_llm: FakeLLMServer
) -> None:
    # B079
    draft = '{"keywords": ["draft"], "tags": ["x", "y"], "context": "draft", "category": "Personal"}'
    fake_llm.reply(f"<think>Let me draft: {draft} [0] {{ hmm</think>\n{json.dumps(REAL)}")
    fields = make_llm(KEY).construct("Qdrant holds the vector index for search.")
    assert fields.keywords == ["qdrant", "vector", "index"]
    assert fields.category == "Technical"


def test_crud_reply_after_a_think_block_with_brackets_yields_one_new_op(
    make_llm: MakeLLM, fake_llm: FakeLLMServer
) -> None:
    # B080
    fake_llm.reply(
        '<think>ops could be [NEW] or [{"action": "NONE"}]...</think>'
        '[{"action": "NEW", "fact": "The user moved to Berlin in May."}]'
    )
    ops = make_llm(KEY).crud([("user", "I moved to Berlin in May."), ("assistant", "Nice!")], [])
    assert [(o.action, o.fact, o.existing_idx) for o in ops] == [("NEW", "The user moved to Berlin in May.", None)]


def test_json_followed_by_a_chat_special_token_is_parsed(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B081
    fake_llm.reply(json.dumps(REAL) + "<|eot_id|>")
    assert make_llm(KEY).construct("Qdrant holds the index.").tags == ["search", "infra"]


def test_a_polite_preamble_before_the_json_is_skipped(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B082
    fake_llm.reply("Sure! Here is the JSON you asked for:\n\n" + json.dumps(REAL) + "\nHope it helps.")
    assert make_llm(KEY).construct("Qdrant holds the index.").context == "Qdrant holds the vector index."


def test_a_reply_without_json_gives_the_blank_note_and_a_parse_error_record(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # B083
    fake_llm.reply("I'm sorry, I can't help with that.")
    fields = make_llm(KEY).construct("Qdrant holds the index.")
    assert fields == NoteFields()
    assert fields.keywords == [] and fields.category == "General" and fields.note_type == "memory"
    assert fields.context == ""
    assert records[0].outcome == "parse_error"
    assert "can't help" in records[0].error


def test_code_fences_are_unwrapped() -> None:
    reply = "Here you go:\n```json\n" + json.dumps(REAL) + "\n```\n"
    assert parse_reply(reply, validate_note_fields) is not None


def test_a_json_document_sent_as_a_quoted_string_is_unwrapped() -> None:
    reply = json.dumps(json.dumps(REAL))
    fields = parse_reply(reply, validate_note_fields)
    assert fields is not None and fields.keywords == REAL["keywords"]


def test_an_unterminated_think_block_leaves_nothing_to_parse() -> None:
    assert parse_reply("<think>" + json.dumps(REAL), validate_note_fields) is None


def test_a_dangling_think_close_drops_the_reasoning_before_it() -> None:
    reply = 'draft {"keywords": ["draft"], "tags": ["a","b"]}</think>' + json.dumps(REAL)
    fields = parse_reply(reply, validate_note_fields)
    assert fields is not None and fields.keywords == REAL["keywords"]


def test_clean_reply_removes_special_tokens_and_reasoning() -> None:
    text = '<|start_header_id|>assistant<|end_header_id|><think>[x]</think>{"a": 1}<|eot_id|>'
    assert " ".join(clean_reply(text).split()) == 'assistant {"a": 1}'


def test_braces_inside_json_strings_do_not_confuse_span_matching() -> None:
    value = dict(REAL, context="uses {curly} and [square] brackets")
    fields = parse_reply("Answer: " + json.dumps(value) + " done", validate_note_fields)
    assert fields is not None and fields.context == "uses {curly} and [square] brackets"


def test_construct_fields_are_normalised_to_the_schema() -> None:
    fields = validate_note_fields(
        {
            "keywords": ["a", "b", "c", "d", "e", "f", "g", "h", "i"],
            "tags": "alpha, beta, gamma, delta, epsilon",
            "context": "  One sentence.  ",
            "category": "research",
            "note_type": "Knowledge",
            "topics": ["t1", "t2", "t3", "t4", "t5", "t6"],
            "confidence": "HIGH",
        }
    )
    assert fields == NoteFields(
        keywords=["a", "b", "c", "d", "e", "f", "g"],
        tags=["alpha", "beta", "gamma", "delta"],
        context="One sentence.",
        category="Research",
        note_type="knowledge",
        topics=["t1", "t2", "t3", "t4", "t5"],
        confidence="high",
    )


def test_unknown_category_and_type_fall_back_and_memory_notes_have_no_topics() -> None:
    fields = validate_note_fields(
        {"keywords": ["x", "y", "z"], "category": "Cooking", "note_type": "diary", "topics": ["t"]}
    )
    assert fields is not None
    assert (fields.category, fields.note_type, fields.topics) == ("General", "memory", [])
    assert fields.confidence == "medium"


@pytest.mark.parametrize("reply", ["", "   ", "null", "[]", "{}", '"just a string"', "[1, 2, 3]"])
def test_unusable_replies_never_raise(reply: str) -> None:
    assert parse_reply(reply, validate_note_fields) is None


def test_a_pathologically_bracketed_reply_is_parsed_quickly() -> None:
    assert parse_reply("[" * 20000, validate_note_fields) is None


def test_the_outcome_the_llm_recorded_is_handed_to_whoever_watches_the_call(
    make_llm: MakeLLM, fake_llm: FakeLLMServer
) -> None:
    from engine.llm.client import recorded_calls

    fake_llm.reply("no json here at all")
    with recorded_calls() as seen:
        fields = make_llm(KEY).construct("Qdrant holds the index.")
    assert fields.keywords == []  # the safe default, not an exception
    assert [(r.role, r.outcome) for r in seen] == [("construct", "parse_error")]
