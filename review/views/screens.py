"""The review screens: dashboard, memory browser, note detail, queues, graph (GET only)."""

from __future__ import annotations

import math
from datetime import datetime, time, timedelta

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.db.models.functions import Length, TruncDate
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from engine.config import get_config
from engine.errors import AmemError
from engine.layers import facts
from engine.retrieval.search import search
from memories.models import Agent, ConflictPair, JobRun, Link, Note, NoteEvent
from review import access
from review.actions import undoable_ids
from review.views.common import agent_choices, event_changes, render

PAGE_SIZE = 20
SEARCH_LIMIT = 20
TREND_DAYS = 7


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    """Counts per agent, last job runs, notes created per day over the last week."""
    ids = agent_choices(request)
    today = timezone.localdate()
    midnight = timezone.make_aware(datetime.combine(today, time.min))
    start = midnight - timedelta(days=TREND_DAYS - 1)
    notes = Note.objects.filter(agent_id__in=ids)
    counts = {
        row["agent_id"]: row
        for row in notes.values("agent_id").annotate(
            active=Count("pk", filter=Q(is_active=True)),
            pending=Count("pk", filter=Q(is_active=True, pending_merge=True)),
            low=Count("pk", filter=Q(is_active=True, low_quality=True)),
            today=Count("pk", filter=Q(created_at__gte=midnight)),
        )
    }
    conflicts = dict(
        ConflictPair.objects.filter(status=ConflictPair.OPEN, note_a__agent_id__in=ids)
        .values_list("note_a__agent_id")
        .annotate(n=Count("pk"))
    )
    days = [today - timedelta(days=i) for i in range(TREND_DAYS - 1, -1, -1)]
    trend: dict[str, dict] = {}
    per_day = (
        notes.filter(created_at__gte=start)
        .annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
        .values("agent_id", "day")
        .annotate(n=Count("pk"))
    )
    for row in per_day:
        trend.setdefault(row["agent_id"], {})[row["day"]] = row["n"]
    jobs: dict[str, dict[str, JobRun]] = {}
    for run in JobRun.objects.filter(agent_id__in=ids).order_by("job", "-started_at"):
        jobs.setdefault(run.agent_id, {}).setdefault(run.job, run)
    rows = []
    for agent_id in ids:
        c = counts.get(agent_id, {})
        series = [trend.get(agent_id, {}).get(day, 0) for day in days]
        peak = max(series) or 1
        rows.append(
            {
                "agent_id": agent_id,
                "active": c.get("active", 0),
                "pending": c.get("pending", 0),
                "low": c.get("low", 0),
                "today": c.get("today", 0),
                "conflicts": conflicts.get(agent_id, 0),
                "trend": [{"day": d, "n": n, "pct": round(100 * n / peak)} for d, n in zip(days, series, strict=True)],
                "jobs": sorted(jobs.get(agent_id, {}).values(), key=lambda r: r.job),
            }
        )
    return render(request, "review/dashboard.html", "agents", {"rows": rows})


@login_required
@require_GET
def browser(request: HttpRequest, agent_id: str) -> HttpResponse:
    """An agent's notes: a search (hybrid retrieval with its score breakdown) or the newest first."""
    agent_id = access.get_agent_id(request.user, agent_id)
    query = request.GET.get("q", "").strip()
    status = request.GET.get("status", "active")
    if status not in ("active", "retired", "all"):
        status = "active"
    context: dict = {"agent_id": agent_id, "q": query, "status": status, "agents": agent_choices(request)}
    if query:
        context.update(_search(request, agent_id, query))
    else:
        notes = Note.objects.filter(agent_id=agent_id)
        if status != "all":
            notes = notes.filter(is_active=status == "active")
        context["page"] = Paginator(notes.order_by("-created_at"), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "review/browser.html", "results", context)


def _search(request: HttpRequest, agent_id: str, query: str) -> dict:
    """Search as the agent sees its memory (no heat: a person browsing is not the agent recalling)."""
    agent = Agent.objects.filter(pk=agent_id).first()
    if agent is None:
        return {"error": "Search needs an agent; shared notes can be browsed without a query."}
    try:
        results = search(query, agent, limit=SEARCH_LIMIT, explain=True, heat=False)
    except AmemError as exc:
        return {"error": str(exc)}
    # The agent may read notes of other agents (shared or granted): show only what this user reviews.
    allowed = set(access.agent_ids_for(request.user))
    return {"results": [r for r in results if r.note.agent_id in allowed]}


@login_required
@require_GET
def note_detail(request: HttpRequest, note_id) -> HttpResponse:
    note = access.get_note(request.user, note_id)
    return render(request, "review/note.html", "note-main", note_context(request, note))


def note_context(request: HttpRequest, note: Note, **extra) -> dict:
    """Everything the note page shows: fields, links both ways, history with diffs and undo buttons."""
    allowed = access.agent_ids_for(request.user)
    out_links = Link.objects.filter(source=note, target__agent_id__in=allowed).select_related("target")
    in_links = Link.objects.filter(target=note, source__agent_id__in=allowed).select_related("source")
    events = list(NoteEvent.objects.filter(note=note).order_by("-created_at", "-id"))
    can_undo = undoable_ids(events)
    history = [{"event": e, "changes": event_changes(e), "undoable": e.pk in can_undo} for e in events]
    candidate = None
    if note.merge_candidate_id and note.merge_candidate and note.merge_candidate.agent_id in allowed:
        candidate = note.merge_candidate
    return {
        "note": note,
        "out_links": out_links,
        "in_links": in_links,
        "history": history,
        "candidate": candidate,
        "min_chars": get_config().quality_min_chars,
        "note_facts": facts.citing(note),
        **extra,
    }


# --- queues ------------------------------------------------------------------------


def _queue_agents(request: HttpRequest) -> tuple[list[str], str]:
    """The agents a queue covers: one picked with ?agent= (404 if not reviewable) or all of them."""
    picked = request.GET.get("agent", "")
    if picked:
        return [access.get_agent_id(request.user, picked)], picked
    return agent_choices(request), ""


@login_required
@require_GET
def merges(request: HttpRequest) -> HttpResponse:
    """Notes flagged pending_merge beside the note each resembled."""
    ids, picked = _queue_agents(request)
    allowed = set(agent_choices(request))
    notes = Note.objects.filter(agent_id__in=ids, is_active=True, pending_merge=True).select_related("merge_candidate")
    rows = [
        {
            "note": n,
            "candidate": n.merge_candidate if n.merge_candidate and n.merge_candidate.agent_id in allowed else None,
        }
        for n in notes.order_by("-created_at")[:100]
    ]
    ctx = {"rows": rows, "agents": agent_choices(request), "picked": picked, "queue": "merges"}
    return render(request, "review/merges.html", "queue", ctx)


@login_required
@require_GET
def conflicts(request: HttpRequest) -> HttpResponse:
    """Open conflict pairs, side by side."""
    ids, picked = _queue_agents(request)
    allowed = agent_choices(request)
    pairs = (
        ConflictPair.objects.filter(status=ConflictPair.OPEN, note_a__agent_id__in=ids, note_b__agent_id__in=allowed)
        .select_related("note_a", "note_b")
        .order_by("-created_at")[:100]
    )
    ctx = {"pairs": pairs, "agents": allowed, "picked": picked, "queue": "conflicts"}
    return render(request, "review/conflicts.html", "queue", ctx)


@login_required
@require_GET
def quality(request: HttpRequest) -> HttpResponse:
    """Notes the quality scan flagged, plus too-short and expired ephemeral notes computed now."""
    ids, picked = _queue_agents(request)
    cfg = get_config()
    active = Note.objects.filter(agent_id__in=ids, is_active=True)
    flagged = list(active.filter(low_quality=True).order_by("-created_at")[:100])
    expired_before = timezone.now() - timedelta(days=cfg.ephemeral_days)
    live = (
        active.filter(low_quality=False)
        .annotate(chars=Length("content"))
        .filter(Q(chars__lt=cfg.quality_min_chars) | Q(ephemeral=True, created_at__lt=expired_before))
        .order_by("-created_at")[:100]
    )
    rows = [{"note": n, "reasons": n.low_quality_reasons or ["flagged"], "flagged": True} for n in flagged]
    for n in live:
        reason = "too_short" if len(n.content.strip()) < cfg.quality_min_chars else "expired_ephemeral"
        rows.append({"note": n, "reasons": [reason], "flagged": False})
    ctx = {"rows": rows, "agents": agent_choices(request), "picked": picked, "queue": "quality"}
    return render(request, "review/quality.html", "queue", ctx)


# --- graph -------------------------------------------------------------------------

GRAPH_MAX = 30


@login_required
@require_GET
def graph(request: HttpRequest, note_id) -> HttpResponse:
    """The note's 2-hop neighbourhood over links (either direction), as a small SVG and a list."""
    note = access.get_note(request.user, note_id)
    allowed = access.agent_ids_for(request.user)
    hops: dict = {note.pk: 0}
    edges: set[tuple] = set()
    frontier = [note.pk]
    for hop in (1, 2):
        links = Link.objects.filter(
            Q(source_id__in=frontier, target__agent_id__in=allowed)
            | Q(target_id__in=frontier, source__agent_id__in=allowed)
        ).values_list("source_id", "target_id")
        nxt = []
        for src, dst in links:
            edges.add((src, dst))
            for pk in (src, dst):
                if pk not in hops and len(hops) < GRAPH_MAX:
                    hops[pk] = hop
                    nxt.append(pk)
        frontier = nxt
    notes = {n.pk: n for n in Note.objects.filter(pk__in=list(hops))}
    nodes = _layout(note.pk, hops, notes)
    at = {n["id"]: n for n in nodes}
    lines = [{"a": at[s], "b": at[t]} for s, t in edges if s in at and t in at]
    if not notes:
        raise Http404("no such note")
    return render(request, "review/graph.html", "graph", {"note": note, "nodes": nodes, "lines": lines})


def _layout(center, hops: dict, notes: dict) -> list[dict]:
    """Rings by hop distance around the note (no layout library, no JS)."""
    nodes = []
    for hop in (0, 1, 2):
        ring = [pk for pk, h in hops.items() if h == hop and pk in notes]
        for i, pk in enumerate(ring):
            angle = 2 * math.pi * i / max(len(ring), 1) + hop * 0.4
            radius = 0 if hop == 0 else 110 * hop
            n = notes[pk]
            nodes.append(
                {
                    "id": pk,
                    "note": n,
                    "hop": hop,
                    "x": round(260 + radius * math.cos(angle), 1),
                    "y": round(260 + radius * math.sin(angle), 1),
                    "label": n.content[:28],
                }
            )
    return nodes
