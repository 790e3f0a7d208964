"""Replies the way small local models write them: every shape parses, or falls back to the offline rules.

Each test names the tolerance it needs; without it the reply would be unusable and the step
would get the blank default (or, for the echo, a made-up answer would be stored).
"""

from __future__ import annotations

import json

import pytest

from engine.llm import schemas
from engine.llm.client import LLM
from engine.llm.offline import OfflineRules
from engine.llm.prompts import load
from engine.llm.types import Candidate, CrudOp, LlmCallRecord, MergeDecision, NoteFields
from tests.engine.llm.conftest import MakeLLM
from testsupport.llm_server import SHAPES, FakeLLMServer

OPENAI = {"AMEM_LLM_PROVIDER": "openai", "AMEM_LLM_MODEL": "local-small"}
TEXT = "Alice moved to Berlin in May and now works at the Charité hospital as a nurse."
GOOD = {
    "keywords": ["Alice", "Berlin", "Charité"],
    "tags": ["relocation", "work"],
    "context": "Alice relocated to Berlin for a nursing job.",
    "category": "Personal",
    "note_type": "memory",
    "topics": [],
    "confidence": "high",
    "importance": 6,
    "facts": [["Alice", "lives_in", "Berlin"]],
}


@pytest.fixture
def llm(make_llm: MakeLLM, offline_rules: OfflineRules) -> LLM:
    return make_llm(OPENAI, offline=offline_rules)


def _only(records: list[LlmCallRecord]) -> LlmCallRecord:
    (record,) = records
    return record


# ---------------------------------------------------------------- the shapes a reply comes in


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "truncated"])
def test_each_sloppy_shape_of_a_complete_reply_parses(
    shape: str, llm: LLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # prose and fences: the balanced-span scan and fence unwrapping; trailing commas and
    # single quotes: json-repair. Without them: outcome parse_error.
    fake_llm.reply_sloppy(GOOD, shape)
    fields = llm.construct(TEXT)
    assert fields.keywords == ["Alice", "Berlin", "Charité"]
    assert fields.context == "Alice relocated to Berlin for a nursing job."
    assert fields.category == "Personal"
    record = _only(records)
    assert record.outcome == "ok"
    # prose and fences are found as they are; only broken JSON needs json-repair
    assert ("repaired reply" in record.error) == (shape in ("trailing_commas", "single_quotes"))


def test_a_note_cut_at_the_token_budget_keeps_its_complete_fields_and_fills_the_rest(
    llm: LLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    fake_llm.reply('{"keywords": ["Alice", "Berlin", "Charité"], "tags": ["relocation", "wo', truncated=True)
    fields = llm.construct(TEXT)
    assert fields.keywords == ["Alice", "Berlin", "Charité"]
    assert fields.tags == ["relocation"]  # the value it was cut in is dropped, not stored as "wo"
    offline = offline_rules.construct(TEXT)
    assert (fields.context, fields.category, fields.note_type) == (
        offline.context,
        offline.category,
        offline.note_type,
    )
    record = _only(records)
    assert record.outcome == "ok"
    assert "cut at the token budget" in record.error and "filled by offline rules" in record.error


def test_crud_ops_cut_at_the_token_budget_never_store_a_half_written_fact(llm: LLM, fake_llm: FakeLLMServer) -> None:
    fake_llm.reply(
        '[{"action": "NEW", "fact": "Alice moved to Berlin in May."}, {"action": "NEW", "fact": "Alice\'s sister Ma',
        truncated=True,
    )
    assert llm.crud([("user", TEXT)], []) == [CrudOp("NEW", "Alice moved to Berlin in May.")]


def test_wrong_field_types_are_read_for_what_they_mean(
    llm: LLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    fake_llm.reply_json(
        {
            "keywords": "Alice, Berlin, Charité",
            "tags": [{"tag": "relocation"}, {"tag": "work"}],
            "context": ["Alice relocated to Berlin.", "She works as a nurse."],
            "category": ["Personal"],
            "note_type": "memory",
            "confidence": 0.9,
            "importance": "7",
        }
    )
    fields = llm.construct(TEXT)
    assert fields.keywords == ["Alice", "Berlin", "Charité"]
    assert fields.tags == ["relocation", "work"]
    assert fields.context == "Alice relocated to Berlin. She works as a nurse."
    assert (fields.category, fields.confidence, fields.importance) == ("Personal", "high", 7)
    assert _only(records).error == ""  # nothing was filled in: every field was usable


def test_a_merge_flag_sent_as_text_is_read(llm: LLM, fake_llm: FakeLLMServer) -> None:
    fake_llm.reply_json({"should_merge": "true", "merged": "Alice lives in Berlin."})
    assert llm.should_merge("Alice lives in Berlin", "Alice lives in Berlin now") == MergeDecision(
        True, "Alice lives in Berlin."
    )


def test_unknown_enum_values_are_matched_or_taken_from_the_offline_rules(
    llm: LLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    fake_llm.reply_json({**GOOD, "category": "Tech", "note_type": "episode"})
    fields = llm.construct(TEXT)
    assert fields.category == "Technical"  # a prefix of an allowed value
    assert fields.note_type == offline_rules.construct(TEXT).note_type
    assert "filled by offline rules: note_type" in _only(records).error

    fake_llm.reply_json({**GOOD, "category": "Healthcare"})
    assert llm.construct(TEXT).category == offline_rules.construct(TEXT).category


def test_crud_actions_in_other_systems_words_are_mapped(llm: LLM, fake_llm: FakeLLMServer) -> None:
    fake_llm.reply_json(
        [
            {"action": "ADD", "fact": "Alice moved to Berlin."},
            {"action": "MODIFY", "existing_idx": 0, "fact": "Alice works at the Charité."},
        ]
    )
    assert llm.crud([("user", TEXT)], ["Alice works at a clinic."]) == [
        CrudOp("NEW", "Alice moved to Berlin."),
        CrudOp("UPDATE", "Alice works at the Charité.", 0),
    ]


# ---------------------------------------------------------------- not an answer: the offline rules answer


def test_the_schema_echoed_back_falls_back_to_the_offline_rules(
    llm: LLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # Its "keywords", "tags", "context" keys look like fields; taken for an answer they
    # would store "type"/"array"-ish nonsense or nothing at all.
    fake_llm.reply_json(schemas.construct())
    assert llm.construct(TEXT) == offline_rules.construct(TEXT)
    record = _only(records)
    assert record.outcome == "parse_error" and "answered by offline rules" in record.error


def test_a_link_schema_echoed_back_links_nothing_it_was_not_asked_to(
    llm: LLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # The schema's enum of offered ids reads like a list of ids to link: without the echo
    # check every candidate would be linked.
    candidates = [Candidate("n1", "Lunch was pasta."), Candidate("n2", "The printer is jammed.")]
    fake_llm.reply_json(schemas.link(["n1", "n2"]))
    assert llm.judge_links(TEXT, candidates) == offline_rules.judge_links(TEXT, candidates) == []
    assert _only(records).outcome == "parse_error"


def test_the_prompts_example_echoed_back_is_not_stored(
    llm: LLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer
) -> None:
    example = load("construct", "en").rsplit("Example reply:", 1)[1].strip()
    fake_llm.reply(example)
    assert llm.construct(TEXT) == offline_rules.construct(TEXT)


def test_the_crud_example_echoed_back_never_updates_a_real_memory(llm: LLM, fake_llm: FakeLLMServer) -> None:
    fake_llm.reply_json(
        [{"action": "UPDATE", "existing_idx": 0, "fact": "Staging database runs PostgreSQL 16 (moved from MySQL 8)."}]
    )
    ops = llm.crud([("user", TEXT)], ["Alice works at a clinic."])
    assert all(op.action == "NEW" for op in ops)  # the offline rules' answer: never an UPDATE


def test_the_instructions_echoed_back_fall_back(llm: LLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer) -> None:
    fake_llm.reply_json(
        {
            "keywords": "3 to 7 specific terms from the text (names, tools, places, key nouns), most important first.",
            "context": "ONE sentence summarising what the text is about and why it matters",
        }
    )
    assert llm.construct(TEXT) == offline_rules.construct(TEXT)


def test_an_answer_quoting_the_users_text_is_not_an_echo(llm: LLM, fake_llm: FakeLLMServer) -> None:
    fake_llm.reply_json({**GOOD, "context": TEXT})
    assert llm.construct(TEXT).context == TEXT


@pytest.mark.parametrize("reply", ["", "   ", "{}", "[]", "I cannot help with that."])
def test_an_empty_answer_falls_back_to_the_offline_rules(
    reply: str, llm: LLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    fake_llm.reply(reply)
    assert llm.construct(TEXT) == offline_rules.construct(TEXT)
    assert _only(records).outcome == "parse_error"


def test_a_timeout_falls_back_to_the_offline_rules(
    make_llm: MakeLLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    llm = make_llm({**OPENAI, "AMEM_LLM_TIMEOUT": "0.3"}, offline=offline_rules)
    fake_llm.reply(json.dumps(GOOD), held=True)  # only the timeout ends the call; the test client never retries
    assert llm.construct(TEXT) == offline_rules.construct(TEXT)
    record = _only(records)
    assert record.outcome == "provider_error" and "Timeout" in record.error


def test_every_role_falls_back_to_its_offline_rule(
    llm: LLM, offline_rules: OfflineRules, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    fake_llm.always("no JSON here")
    candidates = [Candidate("n1", TEXT), Candidate("n2", "Lunch was pasta.")]
    assert llm.judge_links(TEXT, candidates) == offline_rules.judge_links(TEXT, candidates)
    assert llm.crud([("user", TEXT)], []) == offline_rules.crud([("user", TEXT)], [])
    assert llm.should_merge("a b c", "a b c d") == offline_rules.should_merge("a b c", "a b c d")
    assert llm.evolution_judge("x y", "x y z") == offline_rules.evolution_judge("x y", "x y z")
    assert {r.role for r in records} == {"link", "crud", "should_merge", "evolution_judge"}
    assert {r.outcome for r in records} == {"parse_error"}


def test_without_offline_rules_a_failure_still_gets_the_safe_default(
    make_llm: MakeLLM, fake_llm: FakeLLMServer
) -> None:
    fake_llm.reply("")
    assert make_llm(OPENAI).construct(TEXT) == NoteFields()


# ---------------------------------------------------------------- the schema constraint


def test_openai_compatible_requests_carry_the_roles_json_schema(llm: LLM, fake_llm: FakeLLMServer) -> None:
    fake_llm.reply_json({"links": ["n2"]})
    assert llm.judge_links(TEXT, [Candidate("n1", "a"), Candidate("n2", "b")]) == ["n2"]
    (request,) = fake_llm.requests
    response_format = request.body["response_format"]
    assert response_format["type"] == "json_schema"
    schema = response_format["json_schema"]["schema"]
    assert schema["properties"]["links"]["items"]["enum"] == ["n1", "n2"]  # only offered ids can be spelt
    assert schema["required"] == ["links"] and schema["additionalProperties"] is False


ANTHROPIC = {"AMEM_LLM_PROVIDER": "anthropic", "AMEM_LLM_API_KEY": "sk-ant-test"}


def test_anthropic_requests_force_the_roles_schema_as_a_tool(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # The Messages API constrains a reply through a tool's input_schema; the answer comes
    # back as that tool's input (a tool_use block, no text at all).
    fake_llm.reply_json({"links": ["n2"]})
    llm = make_llm(ANTHROPIC)
    assert llm.judge_links(TEXT, [Candidate("n1", "a"), Candidate("n2", "b")]) == ["n2"]
    (request,) = fake_llm.requests
    assert request.path == "/v1/messages" and "response_format" not in request.body
    (tool,) = request.body["tools"]
    assert request.body["tool_choice"] == {"type": "tool", "name": tool["name"]} and tool["name"] == "amem_link"
    assert tool["input_schema"] == schemas.link(["n1", "n2"])
    assert _only(records).outcome == "ok" and _only(records).error == ""


def test_an_anthropic_compatible_server_that_ignores_the_tool_is_still_parsed(
    make_llm: MakeLLM, fake_llm: FakeLLMServer
) -> None:
    fake_llm.reply_sloppy(GOOD, "prose")  # not a JSON object: the fake answers in text, as such servers do
    assert make_llm(ANTHROPIC).construct(TEXT).keywords == GOOD["keywords"]


@pytest.mark.parametrize(("env", "field"), [(OPENAI, "response_format"), (ANTHROPIC, "tools")])
def test_a_server_that_refuses_the_schema_is_asked_without_it_from_then_on(
    env: dict[str, str],
    field: str,
    make_llm: MakeLLM,
    offline_rules: OfflineRules,
    fake_llm: FakeLLMServer,
    records: list[LlmCallRecord],
) -> None:
    fake_llm.schema_support = False
    fake_llm.reply_json(GOOD)
    fake_llm.reply_json(GOOD)
    llm = make_llm(env, offline=offline_rules)
    assert llm.construct(TEXT).keywords == GOOD["keywords"]
    assert llm.construct(TEXT).keywords == GOOD["keywords"]
    carried = [field in r.body for r in fake_llm.requests]
    assert carried == [True, False, False]
    assert [r.outcome for r in records] == ["ok", "ok"]


@pytest.mark.parametrize(
    "role_schema",
    [
        schemas.construct(),
        schemas.link(["a"]),
        schemas.evolve(["a"]),
        schemas.crud(),
        schemas.should_merge(),
        schemas.evolution_judge(),
        schemas.conflict_scan(),
        schemas.episode(),
        schemas.reflect(),
    ],
)
def test_every_schema_is_strict_mode_shaped(role_schema: schemas.Schema) -> None:
    """Every object lists all its properties as required and allows no others (OpenAI strict mode)."""

    def check(node: object) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert node["required"] == list(node["properties"]) and node["additionalProperties"] is False
            for value in node.values():
                check(value)
        elif isinstance(node, list):
            for value in node:
                check(value)

    check(role_schema)
