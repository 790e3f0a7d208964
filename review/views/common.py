"""Shared view helpers: page or partial, the reviewer's agents, history diffs."""

from __future__ import annotations

import difflib
import json

from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from memories.models import NoteEvent
from review import access
from review.actions import META


def render(request: HttpRequest, template: str, partial: str, context: dict, status: int = 200) -> TemplateResponse:
    """htmx requests get the named partial, full requests the page."""
    name = f"{template}#{partial}" if request.htmx and not request.htmx.boosted else template
    response = TemplateResponse(request, template if name == template else name, context, status=status)
    response["Vary"] = "HX-Request"
    return response


def agent_choices(request: HttpRequest) -> list[str]:
    return access.agent_ids_for(request.user)


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def inline_diff(before: str, after: str) -> SafeString:
    """Word-level diff: removed words in <del>, added in <ins> (escaped)."""
    a, b = before.split(" "), after.split(" ")
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(escape(" ".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(f"<del>{escape(' '.join(a[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{escape(' '.join(b[j1:j2]))}</ins>")
    return mark_safe(" ".join(out))


def event_changes(event: NoteEvent) -> list[dict]:
    """One row per field the event changed: field, before, after and an inline diff."""
    before, after = event.before or {}, event.after or {}
    rows = []
    for field in [*before, *(k for k in after if k not in before)]:
        if field in META and field != "reason" and field != "folded_text":
            continue
        old, new = _text(before.get(field, "")), _text(after.get(field, ""))
        if old == new:
            continue
        rows.append({"field": field, "before": old, "after": new, "diff": inline_diff(old, new)})
    return rows
