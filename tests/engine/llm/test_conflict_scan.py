"""Contradiction scan at the LLM layer (B052–B065): the reply parser directly, the call through HTTP."""

from __future__ import annotations

import json
from typing import Any

from engine.llm.parse import conflict_validator, parse_reply
from engine.llm.prompts import load
from engine.llm.types import ConflictFinding, LlmCallRecord
from tests.engine.llm.conftest import MakeLLM
from testsupport.llm_server import FakeLLMServer

KEY = {"ANTHROPIC_API_KEY": "sk-ant-test"}
NOTES = ["I am vegetarian", "I prefer dark mode in every editor", "I loved the steak last night"]


def _parse(reply: Any) -> list[ConflictFinding] | None:
    """The reply parser alone (no HTTP): what the scan makes of the model's text."""
    return parse_reply(reply if isinstance(reply, str) else json.dumps(reply), conflict_validator(len(NOTES)))


def _scan(make_llm: MakeLLM, fake_llm: FakeLLMServer, reply: Any, **env: str) -> list[ConflictFinding]:
    fake_llm.reply(reply if isinstance(reply, str) else json.dumps(reply), role="conflict_scan")
    return make_llm({**KEY, **env}).conflict_scan(NOTES)


def test_a_reported_pair_is_returned_with_its_reason() -> None:
    # B052
    found = _parse([{"a": 0, "b": 2, "reason": "vegetarian vs steak"}])
    assert found == [ConflictFinding(a=0, b=2, superseded=None, reason="vegetarian vs steak")]


def test_the_batch_is_sent_in_one_numbered_call(make_llm: MakeLLM, fake_llm: FakeLLMServer) -> None:
    # B053
    _scan(make_llm, fake_llm, [])
    (request,) = fake_llm.requests
    assert "[0] I am vegetarian" in request.prompt
    assert "[1] I prefer dark mode in every editor" in request.prompt
    assert "[2] I loved the steak last night" in request.prompt
    assert request.body["max_tokens"] == 600


def test_the_scan_uses_the_strong_model(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # B054
    _scan(make_llm, fake_llm, [], AMEM_LLM_MODEL="cheap-1", AMEM_LLM_STRONG_MODEL="strong-1")
    assert fake_llm.requests[0].model == "strong-1"
    assert (records[0].tier, records[0].model) == ("strong", "strong-1")


def test_an_out_of_range_index_is_dropped() -> None:
    # B055
    assert _parse([{"a": 0, "b": 99, "reason": "x"}]) == []


def test_self_pairs_are_dropped_and_pairs_deduplicated_regardless_of_order() -> None:
    # B056
    found = _parse(
        [{"a": 1, "b": 1, "reason": "self"}, {"a": 0, "b": 2, "reason": "r"}, {"a": 2, "b": 0, "reason": "dup"}],
    )
    assert [(f.a, f.b) for f in found] == [(0, 2)]


def test_an_empty_array_means_no_conflicts(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # B057
    assert _scan(make_llm, fake_llm, "[]") == []
    assert records[0].outcome == "ok"


def test_prose_without_an_array_gives_no_pairs_and_no_exception(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # B058
    assert _scan(make_llm, fake_llm, "Notes [0] and [2] look contradictory to me.") == []
    assert records[0].outcome == "parse_error"


def test_an_array_after_a_think_block_with_brackets_is_parsed() -> None:
    # B059
    reply = '<think>maybe [0,2]? or [{"a":1}] hmm</think>[{"a": 0, "b": 2, "superseded": null, "reason": "diet"}]'
    assert len(_parse(reply)) == 1


def test_a_batch_of_one_note_never_calls_the_model(
    make_llm: MakeLLM, fake_llm: FakeLLMServer, records: list[LlmCallRecord]
) -> None:
    # B060
    llm = make_llm(KEY)
    assert llm.conflict_scan(["only one"]) == []
    assert llm.conflict_scan([]) == []
    assert fake_llm.requests == [] and records == []


def test_the_prompt_explains_additive_facts_with_the_second_dog_example() -> None:
    # B061
    for locale in ("en", "zh"):
        prompt = load("conflict_scan", locale)
        assert "Scout" in prompt and "Buddy" in prompt
    assert "Additive facts" in load("conflict_scan", "en")


def test_a_superseded_index_naming_one_side_is_kept() -> None:
    # B062
    (found,) = _parse([{"a": 0, "b": 2, "superseded": 0, "reason": "r"}])
    assert found.superseded == 0


def test_a_superseded_index_outside_the_pair_is_unknown() -> None:
    # B063
    (found,) = _parse([{"a": 0, "b": 2, "superseded": 1, "reason": "r"}])
    assert found.superseded is None


def test_an_explicit_null_superseded_stays_null() -> None:
    # B064
    (found,) = _parse([{"a": 2, "b": 0, "superseded": None, "reason": "r"}])
    assert (found.a, found.b, found.superseded) == (0, 2, None)


def test_the_prompt_says_the_list_is_not_chronological_and_cites_wording_cues() -> None:
    # B065
    prompt = load("conflict_scan", "en")
    assert "NOT in chronological order" in prompt
    assert '"used to"' in prompt and '"back in 2019"' in prompt
    zh = load("conflict_scan", "zh")
    assert "并不是按时间顺序" in zh and "以前" in zh


def test_string_or_float_indices_are_not_accepted() -> None:
    found = _parse(
        [{"a": "0", "b": 2, "reason": "s"}, {"a": 0.0, "b": 1, "reason": "f"}, {"a": True, "b": 2}],
    )
    assert found == []


def test_pairs_wrapped_in_an_object_are_accepted() -> None:
    found = _parse({"pairs": [{"a": 1, "b": 2, "reason": "r"}]})
    assert [(f.a, f.b) for f in found] == [(1, 2)]
