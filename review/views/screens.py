"""The review screens: dashboard, memory browser, note detail, queues, graph (GET only)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count, Q
from django.db.models.functions import TruncDate
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from engine.annotations import facts
from engine.config import get_config
from engine.curation.actions import undoable_ids
from engine.errors import AmemError, InvalidInput
from engine.maintenance.quality import PENDING_CONFLICT
from engine.maintenance.runner import FAILED_CALL
from engine.retrieval.search import search
from memories.models import CATEGORIES, Agent, JobRun, Link, LlmCall, Note, NoteEvent, Pair, waiting_q
from review import access, reasons
from review.views import queues
from review.views.common import HtmxRequest, agent_choices, event_changes, event_label, note_ids_in, render
from review.views.model_costs import WRITE_EVENTS, model_calls

PAGE_SIZE = 20
SEARCH_LIMIT = 20
TREND_DAYS = 7
# A search hit is "strong" when BM25 matched one of its words or its cosine to the query
# reaches this (MiniLM: unrelated sentences sit around 0.0–0.3, paraphrases above 0.5).
STRONG_SIMILARITY = 0.5
FLAGS = {
    "low_quality": Q(low_quality=True),
    "pending_merge": waiting_q(Pair.MERGE, as_newer=True),
    "conflict": waiting_q(Pair.CONFLICT),
    "ephemeral": Q(ephemeral=True),
    "none": Q(low_quality=False) & ~waiting_q(Pair.MERGE, as_newer=True) & ~waiting_q(Pair.CONFLICT),
}
TURN_PATHS = ["episodic", "conversation"]


@login_required
@require_GET
def dashboard(request: HtmxRequest) -> HttpResponse:
    """Counts per agent, last job runs, notes created per day over the last week."""
    ids = agent_choices(request)
    today = timezone.localdate()
    start = timezone.make_aware(datetime.combine(today, time.min)) - timedelta(days=TREND_DAYS - 1)
    notes = Note.objects.filter(agent_id__in=ids)
    counts = {
        row["agent_id"]: row for row in notes.values("agent_id").annotate(active=Count("pk", filter=Q(is_active=True)))
    }
    # The queue columns count exactly what the queues list (and the menu's badges add up).
    waiting = queues.waiting_by_agent(ids)
    days = [today - timedelta(days=i) for i in range(TREND_DAYS - 1, -1, -1)]
    trend: dict[str, dict] = {}
    # Written = when the note was written into amem (its creation event), not the date it tells of:
    # a dated write ("on 8 May 2023 …") keeps that date as created_at.
    per_day = (
        NoteEvent.objects.filter(action__in=WRITE_EVENTS, note__agent_id__in=ids, created_at__gte=start)
        .annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
        .values("note__agent_id", "day")
        .annotate(n=Count("pk"))
    )
    for row in per_day:
        trend.setdefault(row["note__agent_id"], {})[row["day"]] = row["n"]
    jobs: dict[str, dict[str, JobRun]] = {}
    for run in JobRun.objects.filter(agent_id__in=ids).order_by("job", "-started_at"):
        jobs.setdefault(run.agent_id, {}).setdefault(run.job, run)
    rows = []
    for agent_id in ids:
        c: Mapping[str, object] = counts.get(agent_id, {})
        series = [trend.get(agent_id, {}).get(day, 0) for day in days]
        peak = max(series) or 1
        rows.append(
            {
                "agent_id": agent_id,
                "active": c.get("active", 0),
                "pending": waiting[agent_id]["merges"],
                "low": waiting[agent_id]["quality"],
                "today": series[-1],
                "conflicts": waiting[agent_id]["conflicts"],
                "trend": [{"day": d, "n": n, "pct": round(100 * n / peak)} for d, n in zip(days, series, strict=True)],
                "week": sum(series),
                "jobs": sorted(jobs.get(agent_id, {}).values(), key=lambda r: r.job),
            }
        )
    context = {"rows": rows, "days": days, "model": model_calls(ids)}
    return render(request, "review/dashboard.html", "agents", context)


@login_required
@require_GET
def run_detail(request: HtmxRequest, run_id: int) -> HttpResponse:
    """One job run: its outcome, counts and failures (the model calls that failed while it ran)."""
    run = JobRun.objects.filter(pk=run_id, agent_id__in=agent_choices(request)).first()
    if run is None:
        raise Http404("no such run")
    calls = LlmCall.objects.filter(agent_id=run.agent_id, created_at__gte=run.started_at)
    if run.finished_at:
        calls = calls.filter(created_at__lte=run.finished_at)
    failures = calls.filter(outcome__in=FAILED_CALL).order_by("created_at")[:100]
    counts = sorted((run.counts or {}).items())
    recent = JobRun.objects.filter(agent_id=run.agent_id, job=run.job).exclude(pk=run.pk).order_by("-started_at")[:10]
    ctx = {"run": run, "counts": counts, "failures": failures, "calls": calls.count(), "recent": recent}
    return render(request, "review/run.html", "run", ctx)


def _filters(request: HttpRequest) -> dict:
    get = request.GET
    f = {k: get.get(k, "").strip() for k in ("flag", "category", "type", "turns", "subject", "since", "until")}
    f["status"] = get.get("status", "active") if get.get("status") in ("active", "retired", "all") else "active"
    return f


def _filtered(notes, f: dict):
    if f["status"] != "all":
        notes = notes.filter(is_active=f["status"] == "active")
    if f["flag"] in FLAGS:
        notes = notes.filter(FLAGS[f["flag"]])
    if f["category"]:
        notes = notes.filter(category=f["category"])
    if f["type"] in (Note.MEMORY, Note.KNOWLEDGE):
        notes = notes.filter(note_type=f["type"])
    if f["turns"] in ("only", "hide"):
        # Turns are stored verbatim by the episodic paths (POST /turns, /conversations), not constructed.
        turns = NoteEvent.objects.filter(action="create", after__path__in=TURN_PATHS).values("note_id")
        notes = notes.filter(pk__in=turns) if f["turns"] == "only" else notes.exclude(pk__in=turns)
    if f["subject"]:
        if connection.vendor == "postgresql":
            notes = notes.filter(subjects__contains=[f["subject"]])
        else:  # SQLite has no JSON containment: match the quoted id in the stored list
            notes = notes.filter(subjects__icontains=f'"{f["subject"]}"')
    for key, op in (("since", "gte"), ("until", "lte")):
        try:
            day = date.fromisoformat(f[key]) if f[key] else None
        except ValueError:
            day = None
        if day is not None:
            notes = notes.filter(**{f"created_at__date__{op}": day})
    return notes


@login_required
@require_GET
def browser(request: HtmxRequest, agent_id: str) -> HttpResponse:
    """An agent's notes: a search (hybrid retrieval with its score breakdown) or the newest first, filtered."""
    agent_id = access.get_agent_id(request.user, agent_id)
    query = request.GET.get("q", "").strip()
    f = _filters(request)
    context: dict = {
        "agent_id": agent_id,
        "q": query,
        "f": f,
        "status": f["status"],
        "agents": agent_choices(request),
        "categories": CATEGORIES,
        "flags": list(FLAGS),
    }
    params = request.GET.copy()
    params.pop("page", None)
    context["params"] = params.urlencode()
    if query:
        context.update(_search(request, agent_id, query))
        shown = [r.note.pk for r in context.get("results", [])]
    else:
        notes = _filtered(Note.objects.filter(agent_id=agent_id), f)
        context["page"] = Paginator(notes.order_by("-created_at"), PAGE_SIZE).get_page(request.GET.get("page"))
        shown = [n.pk for n in context["page"]]
    context.update(_waiting(shown))
    return render(request, "review/browser.html", "results", context, status=context.pop("http_status", 200))


def _waiting(note_ids: list) -> dict[str, set]:
    """Which of the listed notes wait for a person (their badges), read from the open pairs."""
    listed = Note.objects.filter(pk__in=note_ids)
    return {
        "merge_ids": set(listed.waiting(Pair.MERGE, as_newer=True).values_list("pk", flat=True)),
        "conflict_ids": set(listed.waiting(Pair.CONFLICT).values_list("pk", flat=True)),
    }


def _search(request: HttpRequest, agent_id: str, query: str) -> dict:
    """Search as the agent sees its memory (no heat: a person browsing is not the agent recalling)."""
    agent = Agent.objects.filter(pk=agent_id).first()
    if agent is None:
        return {"error": "Search needs an agent; shared notes can be browsed without a query."}
    try:
        results = search(query, agent, limit=SEARCH_LIMIT, explain=True, heat=False)
    except InvalidInput as exc:  # e.g. a control character in the query: the page says so, with a 400
        return {"error": str(exc), "http_status": 400}
    except AmemError as exc:
        return {"error": str(exc)}
    # The agent may read notes of other agents (shared or granted): show only what this user reviews.
    allowed = set(access.agent_ids_for(request.user))
    results = [r for r in results if r.note.agent_id in allowed]
    hits = []
    for r in results:
        e = r.explain or {}
        strong = e.get("bm25_rank") is not None or (r.similarity or 0) >= STRONG_SIMILARITY
        hits.append({"r": r, "e": e, "strong": strong})
    return {"results": results, "hits": hits, "strong": any(h["strong"] for h in hits)}


@login_required
@require_GET
def note_detail(request: HtmxRequest, note_id) -> HttpResponse:
    note = access.get_note(request.user, note_id)
    return render(request, "review/note.html", "note-main", note_context(request, note))


def note_context(request: HttpRequest, note: Note, **extra) -> dict:
    """Everything the note page shows: fields, links both ways, history with diffs and undo buttons."""
    allowed = access.agent_ids_for(request.user)
    out_links = Link.objects.filter(source=note, target__agent_id__in=allowed).select_related("target")
    in_links = Link.objects.filter(target=note, source__agent_id__in=allowed).select_related("source")
    events = list(NoteEvent.objects.filter(note=note).order_by("-created_at", "-id"))
    can_undo = undoable_ids(events)
    titles = _titles(events, allowed)
    history = []
    for e in events:
        changes = event_changes(e, titles)
        # Every edit shows its diff, the newest too; only a note's first text, when it is still
        # the text, is not printed twice (it is in the box above).
        if "content" not in (e.before or {}) and (e.after or {}).get("content") == note.content:
            changes = [dict(c, kind="now") if c["field"] == "content" else c for c in changes]
        history.append({"event": e, "label": event_label(e), "changes": changes, "undoable": e.pk in can_undo})
    waiting = Pair.objects.open().filter(newer=note).select_related("older")
    merge = waiting.of_kind(Pair.MERGE).order_by("-created_at").first()
    # A conflict's own flag ("pending_conflict") is decided in Conflicts, not kept away here.
    quality_why = [reasons.quality_reason(c) for c in note.low_quality_reasons or [] if c != PENDING_CONFLICT]
    return {
        "note": note,
        "quality_why": quality_why if note.low_quality else [],
        "in_conflict": Pair.objects.open().of_kind(Pair.CONFLICT).touching([note.pk]).exists(),
        "merge": merge,
        "out_links": out_links,
        "in_links": in_links,
        "history": history,
        "candidate": merge.older if merge is not None and merge.older.agent_id in allowed else None,
        "min_chars": get_config().quality_min_chars,
        "note_facts": facts.citing([note]),
        **extra,
    }


def _titles(events: list[NoteEvent], allowed: list[str]) -> dict[str, str]:
    """Note id → short text, for the notes an event history mentions that the reviewer may see."""
    ids = note_ids_in(events)
    notes = Note.objects.filter(pk__in=list(ids), agent_id__in=allowed).only("pk", "content")
    return {str(n.pk): n.content[:80] for n in notes}


# --- graph -------------------------------------------------------------------------

GRAPH_MAX = 30


@login_required
@require_GET
def graph(request: HtmxRequest, note_id) -> HttpResponse:
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
    lines = [_arrow(at[s], at[t]) for s, t in edges if s in at and t in at]
    if not notes:
        raise Http404("no such note")
    pad = 80  # room for the labels under the outer circles
    xs, ys = [n["x"] for n in nodes] or [260], [n["y"] for n in nodes] or [260]
    box = f"{min(xs) - pad:.0f} {min(ys) - pad / 2:.0f} {max(xs) - min(xs) + 2 * pad:.0f} {max(ys) - min(ys) + 1.5 * pad:.0f}"
    ctx = {"note": note, "nodes": nodes, "lines": lines, "box": box, "note_facts": facts.citing(notes.values())}
    return render(request, "review/graph.html", "graph", ctx)


LABEL_CHARS = 26


def _short(text: str) -> str:
    """A graph label: whole words up to LABEL_CHARS, then an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= LABEL_CHARS:
        return text
    cut = text[:LABEL_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(",.;:") + "…"


def _arrow(a: dict, b: dict) -> dict:
    """A link line from a to b, ending at b's circle so the arrowhead shows."""
    dx, dy = b["x"] - a["x"], b["y"] - a["y"]
    length = math.hypot(dx, dy) or 1.0
    stop = (14 if b["hop"] == 0 else 10) / length
    start = (12 if a["hop"] == 0 else 8) / length
    return {
        "a": a,
        "b": b,
        "x1": round(a["x"] + dx * start, 1),
        "y1": round(a["y"] + dy * start, 1),
        "x2": round(b["x"] - dx * stop, 1),
        "y2": round(b["y"] - dy * stop, 1),
    }


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
                    "label": _short(n.content),
                }
            )
    return nodes
