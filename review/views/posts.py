"""Review actions on one note, and undo (POST only, CSRF-checked): each calls
engine/curation/actions.py and answers with the partial it replaces (htmx: the note's main
panel, or the queue card that turns into a "done — undo" card), or, refused with nothing
changed, with the reason (answers.py); a plain form post gets a redirect back with a message.

The pair decisions (pending merges, conflicts) are in decisions.py, the bulk actions in bulk.py.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from engine.curation import actions
from engine.curation.actions import ReviewError, StaleCard
from memories.models import Note, NoteEvent
from review import access
from review.forms import BULK_QUEUES, BackForm, CardForm, NoteTextForm, UndoForm
from review.views import queues
from review.views.answers import back, card_done, changed, invalid, refused, stale
from review.views.common import HtmxRequest
from review.views.screens import note_context


def _note_done(
    request: HtmxRequest, form: BackForm, note: Note, message: str, event: NoteEvent | None = None
) -> HttpResponse:
    """After an action on one note: its main panel (htmx, with an inline undo) or a redirect to its page."""
    note.refresh_from_db()
    if request.htmx:
        ctx = note_context(request, note, flash=message, flash_event=event)
        return changed(TemplateResponse(request, "review/note.html#note-main", ctx))
    messages.success(request, message)
    return back(request, form, reverse("review:note", args=[note.pk]))


@login_required
@require_POST
def edit(request: HtmxRequest, note_id) -> HttpResponse:
    note = access.get_note(request.user, note_id)
    form = NoteTextForm(request.POST)
    page = reverse("review:note", args=[note.pk])
    if not form.is_valid():
        return invalid(request, form, page)
    text = form.cleaned_data["content"]
    if text.strip() == note.content.strip():
        return refused(request, form, ReviewError("The text is unchanged; nothing to save.", status=422), page)
    try:
        actions.edit_text(note, text, request.user)
    except ReviewError as exc:
        return refused(request, form, exc, page)
    return _note_done(request, form, note, "Saved. The old text is in the history.")


def _one_note(request: HtmxRequest, note_id, act: Callable[..., NoteEvent], message: str) -> HttpResponse:
    """A one-note action from the note page or from a low-quality card (``card=1``: answer with the
    done card; the card's ``shown`` version is checked)."""
    note = access.get_note(request.user, note_id)
    form = CardForm(request.POST)
    page = reverse("review:note", args=[note.pk])
    if not form.is_valid():
        return invalid(request, form, page)
    try:
        event = act(note, shown=form.cleaned_data["shown"] or None)
    except StaleCard as exc:
        return (
            stale(request, form, "quality", str(note.pk), exc, page)
            if form.cleaned_data["card"]
            else refused(request, form, exc, page)
        )
    except ReviewError as exc:
        return refused(request, form, exc, page)
    if request.htmx and form.cleaned_data["card"]:
        return card_done(request, "quality", str(note.pk), message, event, note.content)
    return _note_done(request, form, note, message, event)


@login_required
@require_POST
def retire(request: HtmxRequest, note_id) -> HttpResponse:
    return _one_note(
        request,
        note_id,
        lambda n, shown: actions.retire(n, request.user, shown=shown),
        "Retired. It no longer appears in searches.",
    )


@login_required
@require_POST
def restore(request: HtmxRequest, note_id) -> HttpResponse:
    return _one_note(request, note_id, lambda n, shown: actions.restore(n, request.user), "Restored.")


@login_required
@require_POST
def keep_quality(request: HtmxRequest, note_id) -> HttpResponse:
    return _one_note(
        request,
        note_id,
        lambda n, shown: actions.keep_quality(n, request.user, shown=shown),
        "Kept; the low-quality flag is cleared.",
    )


# --- undo ---------------------------------------------------------------------------


@login_required
@require_POST
def undo(request: HtmxRequest, event_id: int) -> HttpResponse:
    """Undo one event (and the rest of its group); answers with the card or note panel it came from."""
    event = get_object_or_404(NoteEvent.objects.select_related("note"), pk=event_id)
    note = access.get_note(request.user, event.note_id)
    form = UndoForm(request.POST)
    page = reverse("review:note", args=[note.pk])
    if not form.is_valid():
        return invalid(request, form, page)

    def may_review(agent_id: str) -> bool:
        return access.may_review(request.user, agent_id)

    try:
        actions.undo(event, request.user, may_review=may_review)
    except ReviewError as exc:
        return refused(request, form, exc, page)
    kind, key, queue = (form.cleaned_data[k] for k in ("kind", "key", "queue"))
    if request.htmx and kind == "bulk" and queue in BULK_QUEUES:
        keys = form.cleaned_data["keys"]
        ctx = {"undone": len(keys), "cards": restored_cards(request, queue, keys), "queue": queue}
        ctx["noun"] = BULK_QUEUES[queue]
        return changed(TemplateResponse(request, "review/cards.html#bulk-result", ctx))
    if request.htmx and kind in queues.CARD_TEMPLATES:
        return changed(queues.card_response(request, kind, key))
    return _note_done(request, form, note, "Undone.")


def restored_cards(request: HttpRequest, queue: str, keys: list[str]) -> list[dict]:
    """Rows for the cards a bulk undo brings back (out-of-band swaps)."""
    if queue in ("merges", "conflicts"):
        allowed = set(access.agent_ids_for(request.user))
        pairs = access.pairs_for(request.user).filter(pk__in=[int(k) for k in keys if k.isdigit()])
        return [{"kind": p.kind, "row": queues.pair_row(p, allowed)} for p in pairs]
    notes = access.notes_for(request.user).filter(pk__in=keys)
    return [{"kind": "quality", "row": queues.quality_row(n)} for n in notes]
