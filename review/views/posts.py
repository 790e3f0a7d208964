"""Review actions (POST only, CSRF-checked): each calls engine/curation/actions.py and answers

* an htmx request with the partial it replaces (the note's main panel, or the queue
  card that turns into a "done — undo" card), or with the message alone (status 409/422,
  retargeted to ``#messages``) when the action was refused and nothing changed;
* a plain form post with a redirect back (Post/Redirect/Get) and a Django message.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django_htmx.http import trigger_client_event

from engine.curation import actions
from engine.curation.actions import ReviewError
from memories.models import Note, NoteEvent
from review import access
from review.views import queues
from review.views.common import HtmxRequest
from review.views.screens import note_context

ROW_TEMPLATES = {
    "merge": "review/merges.html#merge-card",
    "conflict": "review/conflicts.html#conflict-card",
    "quality": "review/quality.html#quality-card",
}


def _back(request: HttpRequest, default: str) -> HttpResponse:
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = default
    return redirect(target or default)


def _refused(request: HtmxRequest, exc: ReviewError, default: str) -> HttpResponse:
    if request.htmx:
        response = TemplateResponse(request, "review/messages.html", {"errors": [str(exc)]}, status=exc.status)
        response["HX-Retarget"] = "#messages"
        response["HX-Reswap"] = "innerHTML"
        return response
    messages.error(request, str(exc))
    return _back(request, default)


def _run(action: Callable[[], object]) -> ReviewError | None:
    try:
        action()
    except ReviewError as exc:
        return exc
    return None


def _note_done(request: HtmxRequest, note: Note, message: str, event: NoteEvent | None = None) -> HttpResponse:
    """After an action on one note: its main panel (htmx, with an inline undo) or a redirect to its page."""
    note.refresh_from_db()
    if request.htmx:
        ctx = note_context(request, note, flash=message, flash_event=event)
        return _changed(TemplateResponse(request, "review/note.html#note-main", ctx))
    messages.success(request, message)
    return _back(request, reverse("review:note", args=[note.pk]))


def _changed(response: HttpResponse) -> HttpResponse:
    """Tell the page a queue changed: the menu's count badges re-fetch themselves."""
    trigger_client_event(response, "queue-changed", {})
    return response


def _card_done(
    request: HttpRequest, kind: str, key: str, message: str, group_event: NoteEvent | None, text: str = ""
) -> HttpResponse:
    """A queue card replaced by what happened, the note's text (collapsed) and an undo button for it."""
    ctx = {"kind": kind, "key": key, "message": message, "event": group_event, "text": text}
    return _changed(TemplateResponse(request, "review/cards.html#done-card", ctx))


def _latest_event(note: Note) -> NoteEvent | None:
    return NoteEvent.objects.filter(note=note).order_by("-id").first()


# --- one note -----------------------------------------------------------------------


@login_required
@require_POST
def edit(request: HtmxRequest, note_id) -> HttpResponse:
    note = access.get_note(request.user, note_id)
    text = request.POST.get("content", "")
    page = reverse("review:note", args=[note.pk])
    if text.strip() == note.content.strip():
        return _refused(request, ReviewError("The text is unchanged; nothing to save.", status=422), page)
    refused = _run(lambda: actions.edit_text(note, text, request.user))
    if refused:
        return _refused(request, refused, page)
    return _note_done(request, note, "Saved. The old text is in the history.")


def _simple(verb: Callable, message: str, kind: str = "quality") -> Callable:
    """A one-note action usable from the note page and from a queue card (``card=1``)."""

    @login_required
    @require_POST
    def view(request: HtmxRequest, note_id) -> HttpResponse:
        note = access.get_note(request.user, note_id)
        page = reverse("review:note", args=[note.pk])
        refused = _run(lambda: verb(note, request.user))
        if refused:
            return _refused(request, refused, page)
        if request.htmx and request.POST.get("card"):
            return _card_done(request, kind, str(note.pk), message, _latest_event(note), note.content)
        return _note_done(request, note, message, _latest_event(note))

    view.__name__ = verb.__name__
    return view


retire = _simple(actions.retire, "Retired. It no longer appears in searches.")
restore = _simple(actions.restore, "Restored.")
keep_quality = _simple(actions.keep_quality, "Kept; the low-quality flag is cleared.")


# --- pending merges -----------------------------------------------------------------

MERGE_OPS = {
    "merge": "Merged into the note it resembled.",
    "keep": "Kept both; the flag is cleared.",
    "dismiss": "Dismissed: the flagged note is retired.",
}


@login_required
@require_POST
def merge_action(request: HtmxRequest, note_id, op: str) -> HttpResponse:
    note = access.get_note(request.user, note_id)
    page = reverse("review:merges")
    if op not in MERGE_OPS:
        return _refused(request, ReviewError(f"Unknown action {op!r}.", status=422), page)

    def act() -> None:
        if op == "keep":
            actions.keep_both_pending(note, request.user)
        elif op == "dismiss":
            actions.dismiss_pending(note, request.user)
        else:
            candidate = note.merge_candidate
            if candidate is not None and not access.may_review(request.user, candidate.agent_id):
                candidate = None
            actions.merge_pending(note, candidate, request.user)

    refused = _run(act)
    if refused:
        return _refused(request, refused, page)
    if request.htmx:
        return _card_done(request, "merge", str(note.pk), MERGE_OPS[op], _latest_event(note), note.content)
    messages.success(request, MERGE_OPS[op])
    return _back(request, page)


# --- conflicts ----------------------------------------------------------------------

CONFLICT_MESSAGES = {
    "keep_a": "Kept A; B is retired.",
    "keep_b": "Kept B; A is retired.",
    "keep_both": "Kept both; the conflict is closed.",
    "merge": "Merged B into A.",
}


@login_required
@require_POST
def conflict_action(request: HtmxRequest, pair_id: int, choice: str) -> HttpResponse:
    pair = access.get_conflict(request.user, pair_id)
    page = reverse("review:conflicts")
    refused = _run(lambda: actions.resolve_conflict(pair, choice, request.user))
    if refused:
        return _refused(request, refused, page)
    message = CONFLICT_MESSAGES[choice]
    if request.htmx:
        event = NoteEvent.objects.filter(after__pair__id=pair.pk).order_by("-id").first()
        text = f"A: {pair.note_a.content}\nB: {pair.note_b.content}"
        return _card_done(request, "conflict", str(pair.pk), message, event, text)
    messages.success(request, message)
    return _back(request, page)


# --- undo ---------------------------------------------------------------------------


@login_required
@require_POST
def undo(request: HtmxRequest, event_id: int) -> HttpResponse:
    """Undo one event (and the rest of its group); answers with the card or note panel it came from."""
    event = get_object_or_404(NoteEvent.objects.select_related("note"), pk=event_id)
    note = access.get_note(request.user, event.note_id)
    page = reverse("review:note", args=[note.pk])

    def may_review(agent_id: str) -> bool:
        return access.may_review(request.user, agent_id)

    refused = _run(lambda: actions.undo(event, request.user, may_review=may_review))
    if refused:
        return _refused(request, refused, page)
    kind, key = request.POST.get("kind", ""), request.POST.get("key", "")
    if request.htmx and kind == "bulk":
        keys = [k for k in request.POST.getlist("keys") if k]
        queue = request.POST.get("queue", "")
        ctx = {"undone": len(keys), "cards": _restored_cards(request, queue, keys), "queue": queue}
        return _changed(TemplateResponse(request, "review/cards.html#bulk-result", ctx))
    if request.htmx and kind in ROW_TEMPLATES:
        card = _restored_card(request, kind, key)
        if card is not None:
            return _changed(card)
    return _note_done(request, note, "Undone.")


def _restored_card(request: HttpRequest, kind: str, key: str) -> HttpResponse | None:
    """The queue card as it was before the action, after an undo from that card."""
    if kind == "conflict":
        pair = access.get_conflict(request.user, key)
        return TemplateResponse(request, ROW_TEMPLATES[kind], {"row": queues.conflict_row(pair)})
    note = access.get_note(request.user, key)
    if kind == "merge":
        allowed = set(access.agent_ids_for(request.user))
        return TemplateResponse(request, ROW_TEMPLATES[kind], {"row": queues.merge_row(note, allowed)})
    return TemplateResponse(request, ROW_TEMPLATES[kind], {"row": queues.quality_row(note)})


# --- many notes at once -------------------------------------------------------------

BULK = {
    "quality": {"retire": "Retired", "keep": "Kept"},
    "merges": {"merge": "Merged", "keep_both": "Kept both of", "dismiss": "Dismissed"},
}
CARD_KIND = {"quality": "quality", "merges": "merge"}


def _restored_cards(request: HttpRequest, queue: str, keys: list[str]) -> list[dict]:
    """Rows for the cards a bulk undo brings back (out-of-band swaps)."""
    allowed = set(access.agent_ids_for(request.user))
    notes = access.notes_for(request.user).filter(pk__in=keys).select_related("merge_candidate")
    if queue == "merges":
        return [{"kind": "merge", "row": queues.merge_row(n, allowed)} for n in notes]
    return [{"kind": "quality", "row": queues.quality_row(n)} for n in notes]


@login_required
@require_POST
def bulk(request: HtmxRequest, queue: str) -> HttpResponse:
    """One action on the selected cards of a queue, as one undoable group."""
    verbs = BULK.get(queue, {})
    verb = request.POST.get("action", "")
    page = reverse(f"review:{queue}") if queue in BULK else reverse("review:dashboard")
    if verb not in verbs:
        return _refused(request, ReviewError(f"Unknown action {verb!r} for this queue.", status=422), page)
    ids = request.POST.getlist("ids")
    notes = list(
        access.notes_for(request.user).filter(pk__in=[i for i in ids if _uuid(i)]).select_related("merge_candidate")
    )
    if not notes:
        return _refused(request, ReviewError("Select at least one card first.", status=422), page)

    allowed = set(access.agent_ids_for(request.user))

    def candidate_for(note: Note) -> Note | None:
        c = note.merge_candidate
        return c if c is not None and c.agent_id in allowed else None

    try:
        group, done, skipped = actions.bulk(notes, verb, request.user, candidate_for=candidate_for)
    except ReviewError as exc:
        return _refused(request, exc, page)
    message = f"{verbs[verb]} {done} note{'s' if done != 1 else ''}."
    if skipped:
        message += f" {len(skipped)} skipped: {skipped[0]}"
    if not request.htmx:
        messages.success(request, message)
        return _back(request, page)
    acted = set(NoteEvent.objects.filter(after__group=group).values_list("note_id", flat=True))
    kind = CARD_KIND[queue]
    cards = [{"kind": kind, "key": str(n.pk), "text": n.content} for n in notes if n.pk in acted]
    ctx = {"message": message, "event": actions.group_event(group), "done_cards": cards, "queue": queue}
    return _changed(TemplateResponse(request, "review/cards.html#bulk-result", ctx))


def _uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True
