"""The three queues (pending merges, conflicts, low quality) and the menu's count badges.

Pending merges and conflicts are one pair flow: each card shows the older and the newer note
side by side with what differs marked, the machine's guess and its reason in words, and the
four decisions (same fact, newer replaces older, both true, not related). Each card is
built by one ``*_row`` function, used for the first paint, for the card an undo brings back,
for a card drawn again because one of its notes changed, and for the bulk preview.

Queues are paginated; the count on the page, the menu's badge and the dashboard come from
the same querysets, so every card the badge counts is reachable from the pages.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from urllib.parse import urlencode, urlsplit

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count, F, Max, Q, QuerySet, Subquery
from django.db.models.functions import Length
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from engine.config import get_config
from engine.curation.actions import PAIR_DECISIONS, merge_preview, pair_sides
from engine.errors import AmemError
from engine.maintenance.runner import OK
from memories.models import JobRun, Note, Pair, waiting_q
from review import access, reasons
from review.diff import differences, side_diff
from review.views.common import HtmxRequest, agent_choices, render

PAGE_SIZE = 20
# What ``?per=`` may ask for: a night of the quality model can flag hundreds of chat turns, and
# "Select all" acts on one page (docs/benchmarks.md, "A quality model fitted on real notes").
PAGE_SIZES = (PAGE_SIZE, 50, 100)
# (action, button text, shortcut key, destructive): the low-quality bar and the keys its cards answer to.
QUALITY_ACTIONS = [("retire", "Retire", "r", True), ("keep", "Keep", "e", False)]
PAIR_ACTIONS = [(d, reasons.DECISIONS[d], reasons.DECISION_KEYS[d], False) for d in PAIR_DECISIONS]


def _queue_agents(request: HttpRequest) -> tuple[list[str], str]:
    """The agents a queue covers: one picked with ?agent= (404 if not reviewable) or all of them."""
    picked = request.GET.get("agent", "")
    if picked:
        return [access.get_agent_id(request.user, picked)], picked
    return agent_choices(request), ""


# --- cards ---------------------------------------------------------------------------


_PLACEHOLDER = uuid.UUID(int=0)


class Links:
    """The URLs a card links to, from one reverse() each (a page of 20 cards made ~130 calls, a
    fifth of its time): the path with a placeholder id, filled in per card."""

    def __init__(self) -> None:
        self.note = reverse("review:note", args=[_PLACEHOLDER])
        self.pair = reverse("review:pair", args=[999999999, "decision"])
        self.retire = reverse("review:retire", args=[_PLACEHOLDER])
        self.keep = reverse("review:keep", args=[_PLACEHOLDER])

    def to_note(self, note: Note, path: str | None = None) -> str:
        return (path or self.note).replace(str(_PLACEHOLDER), str(note.pk))

    def decisions(self, key: str) -> dict[str, str]:
        base = self.pair.replace("999999999", key)
        return {d: base.replace("/decision/", f"/{d}/") for d in PAIR_DECISIONS}


def shown_value(*notes: Note | None) -> str:
    """What a card showed, for its decisions to check: "note-id:revision" for each of its notes."""
    return " ".join(f"{n.pk}:{n.revision}" for n in notes if n is not None)


def _same_fact(older: Note, newer: Note) -> dict:
    """The text "same fact" writes into the older note, and what it adds, in words."""
    try:
        text = merge_preview(older, newer)
    except AmemError as exc:
        return {"preview_error": str(exc)}
    if text == older.content.strip():
        adds = "nothing: the older note already says all of it (the newer is retired into it)"
    elif text == newer.content.strip():
        adds = "the newer note's text, as it is"
    else:
        added = [new for _, new in differences(older.content, text, limit=2) if new]
        adds = "the older note's text, adding " + "; ".join(f"“{a}”" for a in added) if added else "both texts"
    return {"preview": text, "adds": adds}


def _decisions(row: dict, urls: dict[str, str], guessed: str) -> list[dict]:
    both_active = row["older"] is not None and row["older"].is_active and row["newer"].is_active
    available = [d for d in PAIR_DECISIONS if both_active or d in ("both", "unrelated")]
    if "preview" not in row and "same" in available:
        available.remove("same")
    return [
        {
            "code": d,
            "label": reasons.DECISIONS[d],
            "key": reasons.DECISION_KEYS[d],
            "url": urls[d],
            "guessed": d == guessed,
        }
        for d in available
    ]


def _pair(row: dict, older: Note | None, newer: Note, guess: tuple[str, str, str], links: Links) -> dict:
    """The parts every pair card has: sides, diff, guess and reason, prepared text, decisions."""
    code, label, reason = guess
    row.update(older=older, newer=newer, guess=code, guess_label=label, reason=reason, shown=shown_value(older, newer))
    row.update(older_url=links.to_note(older) if older is not None else "", newer_url=links.to_note(newer))
    urls = links.decisions(row["key"])
    row["notes"] = " ".join(str(n.pk) for n in (older, newer) if n is not None)
    if older is not None:
        row["older_html"], row["newer_html"] = side_diff(older.content, newer.content)
        if not reason:
            row["differs"] = differences(older.content, newer.content)
        if older.is_active and newer.is_active:
            row.update(_same_fact(older, newer))
    row["decisions"] = _decisions(row, urls, reasons.GUESSED_DECISION.get(code, ""))
    return row


def pair_row(pair: Pair, allowed: set[str], links: Links | None = None) -> dict:
    """A pair card: the two notes, older beside newer (an older note of an agent the reviewer may
    not review is left out: only "both true" and "not related" apply), and who found the pair."""
    hidden = access.older_hidden(pair, allowed)
    older, newer = (None, pair.newer) if hidden else pair_sides(pair)
    row: dict = {"kind": pair.kind, "key": str(pair.pk), "agent": pair.newer.agent_id, "pair": pair}
    row.update(open=pair.status == Pair.OPEN, older_hidden=hidden)
    if pair.kind == Pair.CONFLICT:
        row.update(found_by=reasons.found_by(pair), likelihood=pair.likelihood)
    else:
        row["similarity"] = pair.similarity
    return _pair(row, older, newer, reasons.pair_guess(pair), links or Links())


def quality_row(note: Note, links: Links | None = None) -> dict:
    """A low-quality card: the note and why it was flagged, in words (the scan's reasons, or computed now)."""
    cfg = get_config()
    if note.low_quality:
        codes = [r for r in note.low_quality_reasons or [] if r != "pending_conflict"] or ["flagged"]
        flagged = True
    else:
        codes = ["too_short" if len(note.content.strip()) < cfg.quality_min_chars else "expired_ephemeral"]
        flagged = False
    return {
        "kind": "quality",
        "key": str(note.pk),
        "note": note,
        "reasons": codes,
        "why": [reasons.quality_reason(c) for c in codes],
        "flagged": flagged,
        "shown": shown_value(note),
        **_quality_urls(note, links or Links()),
    }


def _quality_urls(note: Note, links: Links) -> dict[str, str]:
    return {
        "url": links.to_note(note),
        "retire_url": links.to_note(note, links.retire),
        "keep_url": links.to_note(note, links.keep),
    }


# --- the queues as querysets ---------------------------------------------------------------


def quality_notes(agent_ids: list[str]) -> QuerySet[Note]:
    """Flagged notes, and notes too short or ephemeral and past their time (computed now); none in
    an open conflict (they wait in the Conflicts queue only: one place per note)."""
    cfg = get_config()
    expired_before = timezone.now() - timedelta(days=cfg.ephemeral_days)
    live = Q(chars__lt=cfg.quality_min_chars) | Q(ephemeral=True, created_at__lt=expired_before)
    return (
        Note.objects.filter(agent_id__in=agent_ids, is_active=True)
        .exclude(waiting_q(Pair.CONFLICT))
        .annotate(chars=Length("content"))
        .filter(Q(low_quality=True) | live)
        .order_by("-low_quality", "-created_at", "pk")
    )


def left_for_later(agent_ids: list[str]) -> int:
    """Notes the quality model would flag that each agent's last quality scan left for later nights
    (over ``AMEM_QUALITY_BUDGET``; the scan counts them, as ``over_budget``, past a reviewer's keeps).
    One query: each agent's newest finished run (runs are numbered as they start), not its history."""
    runs = JobRun.objects.filter(agent_id__in=agent_ids, job="quality_scan", outcome=OK)
    newest = runs.values("agent_id").annotate(newest=Max("pk")).values("newest")
    counts = JobRun.objects.filter(pk__in=Subquery(newest)).values_list("counts", flat=True)
    return sum(int((c or {}).get("over_budget", 0)) for c in counts)


def in_conflict_count(agent_ids: list[str]) -> int:
    """Flagged notes that wait in Conflicts instead of here."""
    active = Note.objects.filter(agent_id__in=agent_ids, is_active=True, low_quality=True)
    return active.waiting(Pair.CONFLICT).count()


# Each pair queue's order, for its pages and for the bulk preview of its selected cards: merges
# the newest note first; conflicts the likeliest change first (the judge's score), then the newest.
QUEUE_ORDER = {
    Pair.MERGE: ("-newer__created_at", "newer_id"),
    Pair.CONFLICT: (F("likelihood").desc(nulls_last=True), "-created_at", "-pk"),
}


def merge_pairs(agent_ids: list[str]) -> QuerySet[Pair]:
    """Open merge pairs whose newer note is active and in no open conflict, the newest first."""
    return (
        Pair.objects.open()
        .of_kind(Pair.MERGE)
        .filter(newer__agent_id__in=agent_ids, newer__is_active=True)
        .exclude(newer__in=Note.objects.waiting(Pair.CONFLICT))
        .select_related("older", "newer")
        .order_by(*QUEUE_ORDER[Pair.MERGE])
    )


def open_conflicts(agent_ids: list[str], allowed: list[str]) -> QuerySet[Pair]:
    """Open conflicts, the likeliest change first (the judge's score), then the newest."""
    return (
        Pair.objects.open()
        .of_kind(Pair.CONFLICT)
        .filter(newer__agent_id__in=agent_ids, older__agent_id__in=allowed)
        .select_related("older", "newer")
        .order_by(*QUEUE_ORDER[Pair.CONFLICT])
    )


def _per_agent(queryset, field: str = "agent_id") -> dict[str, int]:
    return dict(queryset.order_by().values_list(field).annotate(n=Count("pk")))


def waiting_by_agent(agent_ids: list[str]) -> dict[str, dict[str, int]]:
    """How many cards wait in each queue, per agent: the dashboard's columns and (summed) the
    menu's badges, counted by the same querysets the queue pages list, so they always agree."""
    merges = _per_agent(merge_pairs(agent_ids), "newer__agent_id")
    conflicts = _per_agent(open_conflicts(agent_ids, agent_ids), "newer__agent_id")
    quality = _per_agent(quality_notes(agent_ids))
    return {
        a: {"merges": merges.get(a, 0), "conflicts": conflicts.get(a, 0), "quality": quality.get(a, 0)}
        for a in agent_ids
    }


def counts(request: HttpRequest) -> dict[str, int]:
    """How many cards wait in each queue, for the menu's badges (all the user's agents)."""
    per_agent = waiting_by_agent(agent_choices(request)).values()
    return {queue: sum(row[queue] for row in per_agent) for queue in ("merges", "conflicts", "quality")}


# --- search and filter inside a queue ----------------------------------------------------


def _filters(request: HttpRequest) -> dict:
    get = request.GET
    f: dict = {k: get.get(k, "").strip() for k in ("q", "subject", "min", "note", "pair")}
    try:
        f["min_value"] = float(f["min"]) if f["min"] else None
    except ValueError:
        f["min_value"] = None
    return f


def _about(subject: str, prefix: str = "") -> Q:
    """Notes about ``subject`` (``prefix``: through a relation, e.g. "note_a__")."""
    if connection.vendor == "postgresql":
        return Q(**{f"{prefix}subjects__contains": [subject]})
    return Q(**{f"{prefix}subjects__icontains": f'"{subject}"'})  # SQLite: the quoted id in the stored list


def _filtered_pairs(pairs: QuerySet[Pair], f: dict, score: str) -> QuerySet[Pair]:
    """A queue's pairs narrowed by the search box, a subject, a least ``score`` and a note or pair id."""
    if f["q"]:
        pairs = pairs.filter(Q(newer__content__icontains=f["q"]) | Q(older__content__icontains=f["q"]))
    if f["subject"]:
        pairs = pairs.filter(_about(f["subject"], "newer__") | _about(f["subject"], "older__"))
    if f["min_value"] is not None:
        pairs = pairs.filter(**{f"{score}__gte": f["min_value"]})
    if f["pair"]:
        pairs = pairs.filter(pk=int(f["pair"]) if f["pair"].isdigit() else -1)
    if f["note"]:
        note = _uuid_or_none(f["note"])
        pairs = pairs.filter(Q(newer_id=note) | Q(older_id=note)) if note else pairs.none()
    return pairs


def _filtered_quality(notes: QuerySet[Note], f: dict) -> QuerySet[Note]:
    if f["q"]:
        notes = notes.filter(content__icontains=f["q"])
    if f["subject"]:
        notes = notes.filter(_about(f["subject"]))
    if f["note"]:
        note = _uuid_or_none(f["note"])
        notes = notes.filter(pk=note) if note else notes.none()
    return notes


def _uuid_or_none(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _tally(groups) -> list[tuple[str, str, int]]:
    """(code, words, cards on this page with it), for the "select all <reason>" buttons."""
    seen: dict[str, int] = {}
    for codes in groups:
        for code in codes:
            seen[code] = seen.get(code, 0) + 1
    return sorted((code, _chip_words(code), n) for code, n in seen.items())


def _chip_words(code: str) -> str:
    return {"same": "guessed same fact", "change": "guessed a change", "both": "guessed both true"}.get(
        code, code.replace("_", " ") if code else "no guess"
    )


def per_page(request: HttpRequest) -> int:
    """Cards a page (``?per=``, one of ``PAGE_SIZES``; anything else: ``PAGE_SIZE``)."""
    asked = request.GET.get("per", "")
    return int(asked) if asked.isdigit() and int(asked) in PAGE_SIZES else PAGE_SIZE


def _page(request: HttpRequest, queryset, f: dict, queue: str, picked: str) -> dict:
    """The page of cards asked for (``?page=``, ``?per=``), the exact total, and links to the other pages."""
    per = per_page(request)
    paginator = Paginator(queryset, per)
    page = paginator.get_page(request.GET.get("page"))
    params = {k: v for k, v in (("agent", picked), *((k, f[k]) for k in ("q", "subject", "min", "note", "pair"))) if v}
    if per != PAGE_SIZE:
        params["per"] = str(per)
    sizes = {k: v for k, v in params.items() if k != "per"}
    return {
        "page": page,
        "total": paginator.count,
        "params": urlencode(params),
        # Links to the other page sizes keep the filters and start on page 1.
        "sizes": [(n, urlencode({**sizes, "per": n}), n == per) for n in PAGE_SIZES]
        if paginator.count > PAGE_SIZE
        else [],
        "filtered": any(f[k] for k in ("q", "subject", "min", "note", "pair")),
        "queue": queue,
    }


def _ctx(request: HttpRequest, picked: str, rows: list[dict], f: dict, paged: dict, **extra) -> dict:
    # Where review.js fetches one card drawn again: /review/queues/cards/<kind>/<key>/.
    card_url = reverse("review:card", args=["k", "0"]).removesuffix("k/0/")
    return {
        "rows": rows,
        "agents": agent_choices(request),
        "picked": picked,
        "f": f,
        "card_url": card_url,
        **paged,
        **extra,
    }


# What each pair queue lists, the score its "at least" filter reads, and how it names a card.
PAIR_QUEUES = {
    "merges": ("review/merges.html", "similarity", "pair", "similarity at least"),
    "conflicts": ("review/conflicts.html", "likelihood", "conflict", "likelihood at least"),
}


def _pair_queue(request: HtmxRequest, queue: str) -> HttpResponse:
    """One of the two pair queues: its open pairs, filtered and paged, one card each."""
    template, score, noun, min_label = PAIR_QUEUES[queue]
    ids, picked = _queue_agents(request)
    allowed = agent_choices(request)
    f = _filters(request)
    pairs = merge_pairs(ids) if queue == "merges" else open_conflicts(ids, allowed)
    paged = _page(request, _filtered_pairs(pairs, f, score), f, queue, picked)
    links = Links()
    rows = [pair_row(p, set(allowed), links) for p in paged["page"]]
    extra = {"reasons": _tally([row["guess"]] for row in rows)} if queue == "merges" else {}
    ctx = _ctx(
        request, picked, rows, f, paged, actions=PAIR_ACTIONS, card_keys=PAIR_ACTIONS, noun=noun, min_label=min_label
    )
    return render(request, template, "queue", {**ctx, **extra})


@login_required
@require_GET
def merges(request: HtmxRequest) -> HttpResponse:
    """Open merge pairs: a note beside the older note it resembles."""
    return _pair_queue(request, "merges")


@login_required
@require_GET
def conflicts(request: HtmxRequest) -> HttpResponse:
    """Open conflict pairs, the likeliest change first."""
    return _pair_queue(request, "conflicts")


@login_required
@require_GET
def quality(request: HtmxRequest) -> HttpResponse:
    """Notes the quality scan flagged, plus too-short and expired ephemeral notes computed now."""
    ids, picked = _queue_agents(request)
    f = _filters(request)
    paged = _page(request, _filtered_quality(quality_notes(ids), f), f, "quality", picked)
    links = Links()
    rows = [quality_row(n, links) for n in paged["page"]]
    ctx = _ctx(
        request,
        picked,
        rows,
        f,
        paged,
        in_conflict=in_conflict_count(ids),
        later=left_for_later(ids),
        budget=get_config().quality_budget,
        reasons=_tally(row["reasons"] for row in rows),
        actions=QUALITY_ACTIONS,
        card_keys=QUALITY_ACTIONS,
    )
    return render(request, "review/quality.html", "queue", ctx)


CARD_TEMPLATES = {
    "merge": "review/cards.html#pair-card",
    "conflict": "review/cards.html#pair-card",
    "quality": "review/quality.html#quality-card",
}


def card_response(request: HttpRequest, kind: str, key: str, *, status: int = 200, **extra) -> TemplateResponse:
    """One queue card as it is now (``extra``: e.g. ``stale=True``, said on the card)."""
    if kind in (Pair.MERGE, Pair.CONFLICT):
        row = pair_row(access.get_pair(request.user, key), set(access.agent_ids_for(request.user)))
    else:
        row = quality_row(access.get_note(request.user, key))
    row.update(extra)
    return TemplateResponse(request, CARD_TEMPLATES[kind], {"row": row}, status=status)


@login_required
@require_GET
def card(request: HtmxRequest, kind: str, key: str) -> HttpResponse:
    """One card drawn again (review.js asks when another decision changed one of its notes)."""
    if kind not in CARD_TEMPLATES:
        return HttpResponse(status=404)
    return card_response(request, kind, key, redrawn=request.GET.get("redrawn") == "1")


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
