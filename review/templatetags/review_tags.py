"""Template filters of the review app: matched words highlighted, numbers for people."""

from __future__ import annotations

import re

from django import template
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

WORD = re.compile(r"\w{2,}", re.UNICODE)
# How a job run's outcome looks: anything not listed (failed, unavailable) is "bad".
OUTCOME_CLASS = {
    "ok": "ok",
    "skipped": "info",
    "partial": "warn",
    "stopped": "warn",
    "ended": "warn",
    "running": "info",
}


@register.filter
def highlight(text: str, query: str) -> SafeString:
    """``text`` escaped, with the words that start like a query word wrapped in <mark>."""
    words = sorted({w.lower() for w in WORD.findall(query or "")}, key=len, reverse=True)
    if not words:
        return escape(text)
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\w*", re.IGNORECASE | re.UNICODE)
    out: list[str] = []
    at = 0
    for m in pattern.finditer(text):
        out.append(escape(text[at : m.start()]))
        out.append(f"<mark>{escape(m.group(0))}</mark>")
        at = m.end()
    out.append(escape(text[at:]))
    return mark_safe("".join(out))


@register.filter
def label(name: str) -> str:
    """snake_case → words ("too_short" → "too short")."""
    return str(name).replace("_", " ")


@register.filter
def outcome_class(outcome: str) -> str:
    """The CSS class of a job run's outcome (review.css colours it)."""
    return OUTCOME_CLASS.get(outcome, "bad")


@register.filter
def ago(when) -> str:
    """A past moment for people: "just now", "5 min ago", "3 h ago", "2 days ago"."""
    if not when:
        return "—"
    seconds = (timezone.now() - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"


@register.filter
def num(value, places: int = 2) -> str:
    """A float rounded for reading; "—" for none."""
    if value is None or value == "":
        return "—"
    try:
        return f"{float(value):.{int(places)}f}"
    except (TypeError, ValueError):
        return str(value)


@register.filter
def percent(value) -> str:
    """A 0–1 score as a whole percentage ("0.64" → "64%"); "—" for none."""
    if value is None or value == "":
        return "—"
    try:
        return f"{round(float(value) * 100)}%"
    except (TypeError, ValueError):
        return str(value)
