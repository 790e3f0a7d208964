"""Shared view helpers: page or partial, the reviewer's agents, history diffs."""

from __future__ import annotations

import json
import uuid
from typing import TypeVar

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django_htmx.middleware import HtmxDetails

from engine.curation.actions import META
from memories.models import NoteEvent
from review import access
from review.diff import inline_diff

_R = TypeVar("_R", bound=HttpResponse)


class HtmxRequest(HttpRequest):
    """The request every review view gets: django-htmx's middleware (settings.MIDDLEWARE) adds ``htmx``."""

    htmx: HtmxDetails


def render(request: HtmxRequest, template: str, partial: str, context: dict, status: int = 200) -> TemplateResponse:
    """htmx requests get the named partial, full requests the page; never from a cache (``fresh``)."""
    name = f"{template}#{partial}" if request.htmx and not request.htmx.boosted else template
    response = TemplateResponse(request, template if name == template else name, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return fresh(response)


def fresh(response: _R) -> _R:
    """No cache may keep a review page (Cache-Control: no-store): Back must never show a card
    as open that was decided since, so the browser asks the server again."""
    add_never_cache_headers(response)
    return response


def agent_choices(request: HttpRequest) -> list[str]:
    return access.agent_ids_for(request.user)


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


FIELD_LABELS = {
    "is_active": "active",
    "low_quality": "low quality",
    "low_quality_reasons": "low-quality reasons",
    "pending_merge": "pending merge",
    "merge_candidate": "resembles",
    "merge_similarity": "similarity",
    "merged_into": "merged into",
    "conflict_reason": "conflict reason",
    "note_type": "note type",
    "folded_text": "text merged in",
    "merged": "merged in",
    "superseded_by": "superseded by",
    "links_repointed": "links re-pointed here from",
    "links_copied": "links copied to",
    "retrieval_count": "retrievals",
    "evolution_type": "evolution",
    "unrelated_to": "not related to",
    "waits_beside": "waits for a person beside",
    "queue": "review queue",
}
# Event keys that are bookkeeping, not something a reviewer reads (a merge's counts before it
# are read as the before-side of its fields instead).
HIDDEN = {"job", "conflict_pair", "pair_id", "verdict", "before"}
# What a decision records beyond the fields, shown in the history (the notes by their text).
SHOWN_META = ("reason", "folded_text", "superseded_by", "unrelated_to")


def _note_id(value: object) -> str | None:
    """``value`` as a note id string, if it is one (events store note references as UUID strings)."""
    if not isinstance(value, str) or len(value) not in (32, 36):
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def note_ids_in(events: list[NoteEvent]) -> set[str]:
    """Every note an event history mentions (merged into, resembled, links moved …)."""
    ids: set[str] = set()
    for e in events:
        for side in (e.before or {}, e.after or {}):
            for value in side.values():
                for item in value if isinstance(value, list) else [value]:
                    if found := _note_id(item):
                        ids.add(found)
    return ids


# What a history line says: by the event's op when it has one, else by its action.
EVENT_LABELS = {
    "create": "Written",
    "fold": "Text merged in",
    "update_neighbor": "Updated by a newer note",
    "strengthen": "Links strengthened",
    "link": "Linked",
    "consolidate": "Merged with another note",
    "crud_update": "Edited by the agent",
    "retire": "Retired",
    "restore": "Restored",
    "flag": "Flags changed by the quality scan",
    "admin_edit": "Edited in the admin",
    "import": "Imported",
    "keep": "Kept (low-quality flag cleared)",
    "keep_both": "Kept both (merge flag cleared)",
    "dismiss": "Dismissed (retired instead of merged)",
    "merge": "Merged",
    # Conflict decisions before the pair flow's one vocabulary (history written until 2026-12-03).
    "conflict_merge": "Conflict resolved by merging",
    "keep_a": "Conflict resolved: the other note replaced",
    "keep_b": "Conflict resolved: the other note replaced",
    "replace": "Decided: the newer note replaces the older",
    "not_related": "Decided: not related to the other note",
    "undo": "Undone",
    "open_pair": "Put before a person beside another note",
    "close_pair": "Decided by the machine",
    "edit": "Text edited",
}


# A decision's event that carries its pair's record (the pair flow's ops, engine/curation/actions.py OPS).
PAIR_LABELS = {
    "merge": "Pair decided: same fact, merged",
    "replace": "Pair decided: the newer note replaces the older",
    "keep_both": "Pair decided: kept both",
    "not_related": "Pair decided: not related",
}


def event_label(event: NoteEvent) -> str:
    op = (event.after or {}).get("op")
    if op in PAIR_LABELS and ("pair" in (event.before or {}) or "pair" in (event.after or {})):
        return PAIR_LABELS[op]
    if event.action == "review" and "content" in (event.before or {}):
        return EVENT_LABELS["edit"]
    return EVENT_LABELS.get(op or "", "") or EVENT_LABELS.get(event.action, event.action.replace("_", " ").capitalize())


def _shown(value: object) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value is None or value == "":
        return "—"
    if isinstance(value, float):
        return f"{value:.2f}"
    return _text(value)


def _sides(event: NoteEvent) -> tuple[dict, dict]:
    """The event's before and after; a merge writes its counts' old values under after["before"]."""
    before, after = dict(event.before or {}), dict(event.after or {})
    if not before and isinstance(after.get("before"), dict):
        before = dict(after["before"])
    return before, after


def event_changes(event: NoteEvent, titles: dict[str, str] | None = None) -> list[dict]:
    """One readable row per field the event changed: lists as chips, notes by their text (never an
    id: "a note" when the reviewer may not see it), text as a word diff."""
    titles = titles or {}
    before, after = _sides(event)
    rows = []
    for field in [*before, *(k for k in after if k not in before)]:
        if field in HIDDEN or (field in META and field not in SHOWN_META):
            continue
        old, new = before.get(field, None), after.get(field, None)
        if old == new or _text(old if old is not None else "") == _text(new if new is not None else ""):
            continue
        row: dict = {"field": FIELD_LABELS.get(field, field.replace("_", " "))}
        old_list, new_list = isinstance(old, list), isinstance(new, list)
        if (old_list or new_list) and all(_note_id(x) for x in [*(old or []), *(new or [])]):
            notes = [_note_id(x) for x in new or []]
            row.update(kind="notes", notes=[{"id": n, "title": titles.get(str(n), "")} for n in notes])
        elif old_list or new_list:
            old_l, new_l = [str(x) for x in old or []], [str(x) for x in new or []]
            row.update(
                kind="list", removed=[x for x in old_l if x not in new_l], added=[x for x in new_l if x not in old_l]
            )
            row["kept"] = [x for x in new_l if x in old_l]
        elif _note_id(old) or _note_id(new):
            before_id, after_id = _note_id(old), _note_id(new)
            row.update(
                kind="note",
                before=before_id,
                after=after_id,
                before_title=titles.get(str(before_id), ""),
                after_title=titles.get(str(after_id), ""),
            )
        elif (isinstance(old, str) and isinstance(new, str)) or field == "folded_text":
            row.update(kind="text", diff=inline_diff(_text(old or ""), _text(new or "")))
        else:
            row.update(kind="value", before=_shown(old), after=_shown(new))
        rows.append(row)
    return rows
