"""Prompt files: one per role and locale, strict rendering."""

from __future__ import annotations

import pytest

from engine.llm.config import LOCALES, ROLES
from engine.llm.prompts import PromptError, load, placeholders, render

EXPECTED_VARIABLES = {
    "construct": {"text"},
    "link": {"text", "candidates"},
    "evolve": {"note", "neighbours"},
    "crud": {"dialogue", "memories"},
    "should_merge": {"a", "b"},
    "evolution_judge": {"old", "new"},
    "conflict_scan": {"notes"},
    "episode": {"turns"},
    "reflect": {"notes"},
}


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("role", ROLES)
def test_every_role_has_a_prompt_per_locale_with_the_same_placeholders(role: str, locale: str) -> None:
    assert placeholders(role, locale) == EXPECTED_VARIABLES[role]
    assert load(role, locale).startswith(f"[amem:{role}]\n")


def test_the_zh_prompts_are_actually_chinese() -> None:
    for role in ROLES:
        text = load(role, "zh")
        assert sum("\u4e00" <= ch <= "\u9fff" for ch in text) > 50, role


def test_rendering_with_a_missing_variable_fails_loudly() -> None:
    with pytest.raises(PromptError, match="needs \\['b'\\]"):
        render("should_merge", "en", {"a": "x"})


def test_rendering_with_an_unused_variable_fails_loudly() -> None:
    with pytest.raises(PromptError, match="no placeholder"):
        render("construct", "en", {"text": "x", "extra": "y"})


def test_an_unknown_prompt_fails_loudly() -> None:
    with pytest.raises(PromptError):
        render("summarise", "en", {})
    with pytest.raises(PromptError):
        render("construct", "fr", {"text": "x"})


def test_rendering_fills_every_placeholder() -> None:
    text = render("evolution_judge", "en", {"old": "OLD-NOTE", "new": "NEW-NOTE"})
    assert "OLD-NOTE" in text and "NEW-NOTE" in text and "{{" not in text


def test_construct_prompt_lists_all_seven_categories() -> None:
    text = load("construct", "en")
    for category in ("Technical", "Business", "Personal", "Project", "Research", "System", "General"):
        assert f'"{category}"' in text
