"""engine/json_limits.py: nesting measured without recursion, refused past the limit."""

from __future__ import annotations

import pytest

from engine import json_limits
from engine.errors import InvalidInput


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_text_depth_counts_brackets_outside_strings():
    assert json_limits.text_depth('{"a": [1, {"b": "[[[{{{"}], "c\\"[": 2}') == 3
    assert json_limits.text_depth("42") == 0


def test_text_depth_measures_a_million_levels_without_recursing():
    assert json_limits.text_depth(nested(1_000_000)) == 1_000_000


def test_value_depth_measures_a_value_too_deep_for_deepcopy():
    value: list = []
    for _ in range(50_000):
        value = [value]
    assert json_limits.value_depth(value) > json_limits.MAX_DEPTH  # stops early, no RecursionError
    with pytest.raises(InvalidInput, match="levels deep; the limit is 64"):
        json_limits.check_value(value)


def test_a_value_at_the_limit_passes():
    value: object = "leaf"
    for _ in range(json_limits.MAX_DEPTH):
        value = {"k": value}
    assert json_limits.check_value(value) is value
    with pytest.raises(InvalidInput):
        json_limits.check_value([value])
