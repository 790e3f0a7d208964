"""Prompt files, one per role and locale (`<role>.<locale>.txt`), and their renderer.

Placeholders are `{{name}}` so the JSON examples inside the prompts need no escaping.
Rendering is strict both ways: a missing variable or an unused one is a bug in the
caller, and a silently half-filled prompt would only show up as bad model output.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

PROMPT_DIR = Path(__file__).resolve().parent
_PLACEHOLDER_RE = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")


class PromptError(Exception):
    """A prompt file is missing or a render call does not match its placeholders."""


@cache
def load(role: str, locale: str) -> str:
    path = PROMPT_DIR / f"{role}.{locale}.txt"
    if not path.is_file():
        raise PromptError(f"no prompt file {path.name} for role {role!r}, locale {locale!r}")
    return path.read_text(encoding="utf-8")


def placeholders(role: str, locale: str) -> set[str]:
    return set(_PLACEHOLDER_RE.findall(load(role, locale)))


def render(role: str, locale: str, variables: Mapping[str, object]) -> str:
    """Fill a prompt in one pass, so `{{…}}` inside user text is never re-expanded."""
    template = load(role, locale)
    wanted = set(_PLACEHOLDER_RE.findall(template))
    missing = wanted - set(variables)
    if missing:
        raise PromptError(f"prompt {role}.{locale} needs {sorted(missing)}")
    unused = set(variables) - wanted
    if unused:
        raise PromptError(f"prompt {role}.{locale} has no placeholder for {sorted(unused)}")
    return _PLACEHOLDER_RE.sub(lambda m: str(variables[m.group(1)]), template)
