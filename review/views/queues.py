"""The three queues (pending merges, conflicts, low quality) and the menu's count badges.

Each card is built by one ``*_row`` function, used for the first paint, for the card
an undo brings back, and for the cards a bulk action turns into done cards.
"""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.db.models.functions import Length
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import Resolver404, resolve
from django.utils import timezone
from django.views.decorators.http import require_GET

from engine.config import get_config
from engine.curation.actions import merge_preview
from engine.errors import AmemError
from memories.models import ConflictPair, Note
from review import access
from review.views.common import HtmxRequest, agent_choices, render, side_diff

QUEUE_MAX = 200
# (action, button text, shortcut key, destructive): the bulk bar and the keys a card answers to.
QUALITY_ACTIONS = [("retire", "Retire", "r", True), ("keep", "Keep", "e", False)]
MERGE_ACTIONS = [
    ("merge", "Merge", "m", False),
    ("keep_both", "Keep both", "b", False),
    ("dismiss", "Dismiss", "d", True),
]
# Conflicts in bulk: only "keep both" (false alarms, e.g. all of one rule); the rest is decided card by card.
CONFLICT_ACTIONS = [("keep_both", "Keep both", "o", False)]
CONFLICT_KEYS = [
    ("keep_a", "Keep A", "a", False),
    ("keep_b", "Keep B", "b", False),
    ("keep_both", "Keep both", "o", False),
    ("merge", "Merge B into A", "m", False),
]


def _queue_agents(request: HttpRequest) -> tuple[list[str], str]:
    """The agents a queue covers: one picked with ?agent= (404 if not reviewable) or all of them."""
    picked = request.GET.get("agent", "")
    if picked:
        return [access.get_agent_id(request.user, picked)], picked
    return agent_choices(request), ""


def _preview(winner: Note, loser: Note) -> dict:
    try:
        return {"preview": merge_preview(winner, loser)}
    except AmemError as exc:
        return {"preview_error": str(exc)}


def merge_row(note: Note, allowed: set[str]) -> dict:
    """A pending-merge card: the flagged note, the note it resembles, their difference, the merged text."""
    candidate = note.merge_candidate if note.merge_candidate and note.merge_candidate.agent_id in allowed else None
    row: dict = {"note": note, "candidate": candidate}
    if candidate is not None:
        row["old_html"], row["new_html"] = side_diff(candidate.content, note.content)
        if candidate.is_active:
            row.update(_preview(candidate, note))
    return row


def conflict_rule(reason: str) -> str:
    """The rule that raised a conflict, from its reason: the words before the specifics
    ("[write] different numbers or dates: 3 / 5" → "[write] different numbers or dates")."""
    return re.split(r'[:("“]', reason or "", maxsplit=1)[0].strip() or "no reason given"


def conflict_row(pair: ConflictPair) -> dict:
    row: dict = {"pair": pair, "rule": conflict_rule(pair.reason)}
    row["a_html"], row["b_html"] = side_diff(pair.note_a.content, pair.note_b.content)
    if pair.note_a.is_active and pair.note_b.is_active:
        row.update(_preview(pair.note_a, pair.note_b))
    return row


def quality_row(note: Note) -> dict:
    cfg = get_config()
    if note.low_quality:
        return {"note": note, "reasons": note.low_quality_reasons or ["flagged"], "flagged": True}
    reason = "too_short" if len(note.content.strip()) < cfg.quality_min_chars else "expired_ephemeral"
    return {"note": note, "reasons": [reason], "flagged": False}


def conflicted_ids(agent_ids: list[str]) -> set[uuid.UUID]:
    """Notes in an open conflict: they wait in the Conflicts queue only (one place per note)."""
    pairs = ConflictPair.objects.filter(status=ConflictPair.OPEN).filter(
        Q(note_a__agent_id__in=agent_ids) | Q(note_b__agent_id__in=agent_ids)
    )
    ids: set[uuid.UUID] = set()
    for a, b in pairs.values_list("note_a_id", "note_b_id"):
        ids.update((a, b))
    return ids


def _quality_sets(agent_ids: list[str]):
    """(flagged, computed now, flagged but in a conflict): the low-quality queue as querysets."""
    cfg = get_config()
    active = Note.objects.filter(agent_id__in=agent_ids, is_active=True)
    busy = conflicted_ids(agent_ids)
    flagged = active.filter(low_quality=True).exclude(conflict=True).exclude(pk__in=busy)
    expired_before = timezone.now() - timedelta(days=cfg.ephemeral_days)
    live = (
        active.filter(low_quality=False)
        .exclude(conflict=True)
        .exclude(pk__in=busy)
        .annotate(chars=Length("content"))
        .filter(Q(chars__lt=cfg.quality_min_chars) | Q(ephemeral=True, created_at__lt=expired_before))
    )
    in_conflict = active.filter(low_quality=True).filter(Q(conflict=True) | Q(pk__in=busy))
    return flagged, live, in_conflict


def quality_notes(agent_ids: list[str]) -> tuple[list[Note], int]:
    """Flagged notes, then too-short and expired ephemeral ones computed now; and how many are in a conflict."""
    flagged, live, in_conflict = _quality_sets(agent_ids)
    notes = list(flagged.order_by("-created_at")[:QUEUE_MAX]) + list(live.order_by("-created_at")[:QUEUE_MAX])
    return notes[:QUEUE_MAX], in_conflict.count()


def merge_notes(agent_ids: list[str]):
    return (
        Note.objects.filter(agent_id__in=agent_ids, is_active=True, pending_merge=True)
        .exclude(pk__in=conflicted_ids(agent_ids))
        .select_related("merge_candidate")
        .order_by("-created_at")
    )


def open_pairs(agent_ids: list[str], allowed: list[str]):
    return (
        ConflictPair.objects.filter(
            status=ConflictPair.OPEN, note_a__agent_id__in=agent_ids, note_b__agent_id__in=allowed
        )
        .select_related("note_a", "note_b")
        .order_by("-created_at")
    )


def _per_agent(queryset, field: str = "agent_id") -> dict[str, int]:
    return dict(queryset.order_by().values_list(field).annotate(n=Count("pk")))


def waiting_by_agent(agent_ids: list[str]) -> dict[str, dict[str, int]]:
    """How many cards wait in each queue, per agent: the dashboard's columns and (summed) the
    menu's badges, counted by the same querysets the queue pages list, so they always agree."""
    flagged, live, _ = _quality_sets(agent_ids)
    merges = _per_agent(merge_notes(agent_ids))
    conflicts = _per_agent(open_pairs(agent_ids, agent_ids), "note_a__agent_id")
    quality = _per_agent(flagged)
    for agent_id, n in _per_agent(live).items():
        quality[agent_id] = quality.get(agent_id, 0) + n
    return {
        a: {"merges": merges.get(a, 0), "conflicts": conflicts.get(a, 0), "quality": quality.get(a, 0)}
        for a in agent_ids
    }


def counts(request: HttpRequest) -> dict[str, int]:
    """How many cards wait in each queue, for the menu's badges (all the user's agents)."""
    per_agent = waiting_by_agent(agent_choices(request)).values()
    return {queue: sum(row[queue] for row in per_agent) for queue in ("merges", "conflicts", "quality")}


def _tally(groups) -> list[tuple[str, int]]:
    """(reason, cards with it), for the bar's "all <reason>" selectors."""
    seen: dict[str, int] = {}
    for reasons in groups:
        for reason in reasons:
            seen[reason] = seen.get(reason, 0) + 1
    return sorted(seen.items())


def _ctx(request: HttpRequest, queue: str, picked: str, rows: list[dict], **extra) -> dict:
    return {"rows": rows, "agents": agent_choices(request), "picked": picked, "queue": queue, **extra}


@login_required
@require_GET
def merges(request: HtmxRequest) -> HttpResponse:
    """Notes flagged pending_merge beside the note each resembled."""
    ids, picked = _queue_agents(request)
    allowed = set(agent_choices(request))
    rows = [merge_row(n, allowed) for n in merge_notes(ids)[:QUEUE_MAX]]
    ctx = _ctx(request, "merges", picked, rows, actions=MERGE_ACTIONS, card_keys=MERGE_ACTIONS)
    return render(request, "review/merges.html", "queue", ctx)


@login_required
@require_GET
def conflicts(request: HtmxRequest) -> HttpResponse:
    """Open conflict pairs, side by side."""
    ids, picked = _queue_agents(request)
    rows = [conflict_row(p) for p in open_pairs(ids, agent_choices(request))[:QUEUE_MAX]]
    ctx = _ctx(
        request,
        "conflicts",
        picked,
        rows,
        reasons=_tally([row["rule"]] for row in rows),
        actions=CONFLICT_ACTIONS,
        card_keys=CONFLICT_KEYS,
        noun="conflict",
    )
    return render(request, "review/conflicts.html", "queue", ctx)


@login_required
@require_GET
def quality(request: HtmxRequest) -> HttpResponse:
    """Notes the quality scan flagged, plus too-short and expired ephemeral notes computed now."""
    ids, picked = _queue_agents(request)
    notes, in_conflict = quality_notes(ids)
    rows = [quality_row(n) for n in notes]
    ctx = _ctx(
        request,
        "quality",
        picked,
        rows,
        in_conflict=in_conflict,
        reasons=_tally(row["reasons"] for row in rows),
        actions=QUALITY_ACTIONS,
        card_keys=QUALITY_ACTIONS,
    )
    return render(request, "review/quality.html", "queue", ctx)


@login_required
@require_GET
def badges(request: HtmxRequest) -> HttpResponse:
    """The menu's queue links with their counts (re-fetched after every queue action)."""
    here = ""
    if request.htmx and request.htmx.current_url:
        try:
            here = resolve(urlsplit(request.htmx.current_url).path).url_name or ""
        except Resolver404:
            here = ""
    return TemplateResponse(request, "review/base.html#menu", {"counts": counts(request), "here": here})
