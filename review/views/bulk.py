"""Many cards at once: first what the action will do to each card (the preview), then, confirmed,
the action as one undoable group (POST only, CSRF-checked).

The preview lists every selected card with the decision in words and the texts it keeps,
writes or retires, and carries the version of each card it showed; the run skips (and names)
a card that changed since, so a bulk action never does what the preview did not show.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from engine.curation import actions
from engine.curation.actions import ReviewError
from memories.models import Pair
from review import access, reasons
from review.forms import BULK_QUEUES, BulkForm
from review.views import queues
from review.views.answers import back, changed, invalid, refused
from review.views.common import HtmxRequest, fresh
from review.views.decisions import quoted

VERBS = {
    "quality": {"retire": "Retire", "keep": "Keep"},
    "merges": dict(reasons.DECISIONS),
    "conflicts": dict(reasons.DECISIONS),
}
CARD_KIND = {"quality": "quality", "merges": "merge", "conflicts": "conflict"}
# What a bulk run did, for the bar.
DONE = {
    "retire": "Retired {n} {nouns}.",
    "keep": "Kept {n} {nouns}.",
    "same": "Same fact: {n} {nouns} merged.",
    "replace": "Newer replaces older: {n} {nouns}, the older notes retired.",
    "both": "Both true: kept both notes of {n} {nouns}.",
    "unrelated": "Not related: kept both notes of {n} {nouns}, recorded as unrelated.",
}


def _will(verb: str, row: dict) -> tuple[str, str]:
    """(what the action will do to this card, in words; why it will skip it, or "")."""
    if row["kind"] == "quality":
        note = row["note"]
        if verb == "keep" and not row["flagged"]:
            return "", "computed now, not flagged: only Retire applies"
        return ("Retire " if verb == "retire" else "Keep, clearing the flag: ") + quoted(note.content, 24), ""
    older, newer = row["older"], row["newer"]
    if verb not in {d["code"] for d in row["decisions"]}:
        return "", row.get("preview_error") or "this decision does not apply to this card any more"
    if verb == "same":
        return f"Write {quoted(row['preview'], 40)} into the older note; retire the newer", ""
    if verb == "replace":
        return f"Keep {quoted(newer.content)}; retire {quoted(older.content)}", ""
    if verb == "both":
        return "Keep both" + (f": {quoted(older.content)} and {quoted(newer.content)}" if older else ""), ""
    return "Keep both, recorded as not related", ""


QUEUE_KIND = {"merges": Pair.MERGE, "conflicts": Pair.CONFLICT}


def _pairs(request: HtmxRequest, queue: str, ids: list) -> QuerySet[Pair]:
    """The selected pairs of this queue the user may review, in the queue's order."""
    kind = QUEUE_KIND[queue]
    keys = [int(k) for k in ids if str(k).isdigit()]
    return access.pairs_for(request.user).filter(pk__in=keys, kind=kind).order_by(*queues.QUEUE_ORDER[kind])


def _rows(request: HtmxRequest, queue: str, ids: list) -> list[dict]:
    """The selected cards as they are now, in the queue's order."""
    if queue in QUEUE_KIND:
        allowed = set(access.agent_ids_for(request.user))
        return [queues.pair_row(p, allowed) for p in _pairs(request, queue, ids).filter(status=Pair.OPEN)]
    notes = access.notes_for(request.user).filter(pk__in=ids, is_active=True)
    return [queues.quality_row(n) for n in notes.order_by("-created_at")]


def _preview(request: HtmxRequest, form: BulkForm, queue: str, verb: str) -> HttpResponse:
    rows = _rows(request, queue, form.cleaned_data["ids"])
    if not rows:
        return refused(request, form, ReviewError("Select at least one card first.", status=422), _page(queue))
    items = []
    for row in rows:
        will, skip = _will(verb, row)
        items.append({"row": row, "will": will, "skip": skip, "shown": row["shown"].replace(" ", ",")})
    ctx = {
        "queue": queue,
        "verb": verb,
        "label": VERBS[queue][verb],
        "items": items,
        "acting": sum(1 for i in items if not i["skip"]),
        "noun": BULK_QUEUES[queue],
    }
    if request.htmx:
        return fresh(TemplateResponse(request, "review/bulk.html#bulk-preview", ctx))
    return fresh(TemplateResponse(request, "review/bulk.html", ctx))


def _page(queue: str) -> str:
    return reverse(f"review:{queue}") if queue in VERBS else reverse("review:dashboard")


def _run_quality(request: HtmxRequest, form: BulkForm, verb: str) -> tuple[str, list[dict], list[str]]:
    notes = list(access.notes_for(request.user).filter(pk__in=form.cleaned_data["ids"]))
    if not notes:
        raise ReviewError("Select at least one card first.", status=422)
    shown = form.cleaned_data["shown"]
    result = actions.bulk_quality(notes, verb, request.user, shown_for=lambda n: shown.get(str(n.pk)) or None)
    return result.group, [{"key": str(n.pk), "text": n.content} for n in result.done], result.skipped


def _run_pairs(request: HtmxRequest, form: BulkForm, queue: str, verb: str) -> tuple[str, list[dict], list[str]]:
    pairs = list(_pairs(request, queue, form.cleaned_data["ids"]))
    if not pairs:
        raise ReviewError("Select at least one card first.", status=422)
    shown, allowed = form.cleaned_data["shown"], set(access.agent_ids_for(request.user))
    result = actions.bulk_pairs(
        pairs,
        verb,
        request.user,
        shown_for=lambda p: shown.get(str(p.pk)) or None,
        older_hidden=lambda p: access.older_hidden(p, allowed),
    )
    done = [{"key": str(p.pk), "text": f"{p.older.content}\n{p.newer.content}"} for p in result.done]
    return result.group, done, result.skipped


@login_required
@require_POST
def bulk(request: HtmxRequest, queue: str) -> HttpResponse:
    """Preview one action on the selected cards of a queue, or (``step=run``) do it as one undoable group."""
    verbs = VERBS.get(queue, {})
    form = BulkForm(request.POST, queue=queue)
    page = _page(queue)
    if not form.is_valid():
        return invalid(request, form, page)
    verb = form.cleaned_data["action"]
    if verb not in verbs:
        return refused(request, form, ReviewError(f"Unknown action {verb!r} for this queue.", status=422), page)
    if form.cleaned_data["step"] != "run":
        return _preview(request, form, queue, verb)
    try:
        if queue in QUEUE_KIND:
            group, done, skipped = _run_pairs(request, form, queue, verb)
        else:
            group, done, skipped = _run_quality(request, form, verb)
    except ReviewError as exc:
        return refused(request, form, exc, page)
    n, noun = len(done), BULK_QUEUES[queue]
    message = DONE[verb].format(n=n, nouns=f"{noun}{'s' if n != 1 else ''}")
    if skipped:
        message += f" {len(skipped)} skipped: {skipped[0]}"
    if not request.htmx:
        messages.success(request, message)
        return back(request, form, page)
    cards = [{"kind": CARD_KIND[queue], **card} for card in done]
    ctx = {"message": message, "event": actions.group_event(group), "done_cards": cards, "queue": queue}
    return changed(TemplateResponse(request, "review/cards.html#bulk-result", ctx))
