"""Review actions (POST only, CSRF-checked): each calls engine/curation/actions.py and answers

* an htmx request with the partial it replaces (the note's main panel, or the queue
  card that turns into a "done — undo" card), or with the message alone (status 409/422,
  retargeted to ``#messages``) when the action was refused and nothing changed;
* a plain form post with a redirect back (Post/Redirect/Get) and a Django message.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django_htmx.http import reswap, retarget, trigger_client_event

from engine.curation import actions
from engine.curation.actions import ReviewError
from memories.models import ConflictPair, Note, NoteEvent
from review import access
from review.forms import BULK_QUEUES, BackForm, BulkForm, CardForm, MergeForm, NoteTextForm, UndoForm
from review.views import queues
from review.views.common import HtmxRequest
from review.views.screens import note_context

ROW_TEMPLATES = {
    "merge": "review/merges.html#merge-card",
    "conflict": "review/conflicts.html#conflict-card",
    "quality": "review/quality.html#quality-card",
}


def _back(request: HttpRequest, form: BackForm, default: str) -> HttpResponse:
    """Post/Redirect/Get: to the form's ``next`` when it is a page of this site, else ``default``."""
    target = form.cleaned_data.get("next", "") if form.is_valid() else ""
    if not target or not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = default
    return redirect(target)


def _refused(request: HtmxRequest, form: BackForm, exc: ReviewError, default: str) -> HttpResponse:
    """Nothing changed: htmx gets the reason in #messages (409/422), a plain post a message and a redirect."""
    if request.htmx:
        response = TemplateResponse(request, "review/messages.html", {"errors": [str(exc)]}, status=exc.status)
        return reswap(retarget(response, "#messages"), "innerHTML")
    messages.error(request, str(exc))
    return _back(request, form, default)


def _invalid(request: HtmxRequest, form: BackForm, default: str) -> HttpResponse:
    """A post whose fields do not clean: the form's own words, status 422."""
    errors = [str(e) for errs in form.errors.values() for e in errs]
    return _refused(request, form, ReviewError(" ".join(errors) or "The form is not valid.", status=422), default)


def _run(action: Callable[[], object]) -> ReviewError | None:
    try:
        action()
    except ReviewError as exc:
        return exc
    return None


def _note_done(
    request: HtmxRequest, form: BackForm, note: Note, message: str, event: NoteEvent | None = None
) -> HttpResponse:
    """After an action on one note: its main panel (htmx, with an inline undo) or a redirect to its page."""
    note.refresh_from_db()
    if request.htmx:
        ctx = note_context(request, note, flash=message, flash_event=event)
        return _changed(TemplateResponse(request, "review/note.html#note-main", ctx))
    messages.success(request, message)
    return _back(request, form, reverse("review:note", args=[note.pk]))


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
    form = NoteTextForm(request.POST)
    page = reverse("review:note", args=[note.pk])
    if not form.is_valid():
        return _invalid(request, form, page)
    text = form.cleaned_data["content"]
    if text.strip() == note.content.strip():
        return _refused(request, form, ReviewError("The text is unchanged; nothing to save.", status=422), page)
    refused = _run(lambda: actions.edit_text(note, text, request.user))
    if refused:
        return _refused(request, form, refused, page)
    return _note_done(request, form, note, "Saved. The old text is in the history.")


def _one_note(request: HtmxRequest, note_id, act: Callable[[Note], object], message: str) -> HttpResponse:
    """A one-note action from the note page or from a low-quality card (``card=1``: answer with the done card)."""
    note = access.get_note(request.user, note_id)
    form = CardForm(request.POST)
    page = reverse("review:note", args=[note.pk])
    if not form.is_valid():
        return _invalid(request, form, page)
    refused = _run(lambda: act(note))
    if refused:
        return _refused(request, form, refused, page)
    if request.htmx and form.cleaned_data["card"]:
        return _card_done(request, "quality", str(note.pk), message, _latest_event(note), note.content)
    return _note_done(request, form, note, message, _latest_event(note))


@login_required
@require_POST
def retire(request: HtmxRequest, note_id) -> HttpResponse:
    return _one_note(
        request, note_id, lambda n: actions.retire(n, request.user), "Retired. It no longer appears in searches."
    )


@login_required
@require_POST
def restore(request: HtmxRequest, note_id) -> HttpResponse:
    return _one_note(request, note_id, lambda n: actions.restore(n, request.user), "Restored.")


@login_required
@require_POST
def keep_quality(request: HtmxRequest, note_id) -> HttpResponse:
    return _one_note(
        request, note_id, lambda n: actions.keep_quality(n, request.user), "Kept; the low-quality flag is cleared."
    )


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
    form = MergeForm(request.POST)
    page = reverse("review:merges")
    if op not in MERGE_OPS:
        return _refused(request, form, ReviewError(f"Unknown action {op!r}.", status=422), page)
    if not form.is_valid():
        return _invalid(request, form, page)
    text = form.cleaned_data["text"].strip() or None

    def act() -> None:
        if op == "keep":
            actions.keep_both_pending(note, request.user)
        elif op == "dismiss":
            actions.dismiss_pending(note, request.user)
        else:
            candidate = note.merge_candidate
            if candidate is not None and not access.may_review(request.user, candidate.agent_id):
                candidate = None
            actions.merge_pending(note, candidate, request.user, text=text)

    refused = _run(act)
    if refused:
        return _refused(request, form, refused, page)
    if request.htmx:
        return _card_done(request, "merge", str(note.pk), MERGE_OPS[op], _latest_event(note), note.content)
    messages.success(request, MERGE_OPS[op])
    return _back(request, form, page)


# --- conflicts ----------------------------------------------------------------------

CONFLICT_MESSAGES = {
    "keep_a": "Kept A; B is retired.",
    "keep_b": "Kept B; A is retired.",
    "keep_both": "Kept both; the conflict is closed.",
    "merge": "Merged B into A.",
}


def _conflict_text(pair: ConflictPair) -> str:
    return f"A: {pair.note_a.content}\nB: {pair.note_b.content}"


@login_required
@require_POST
def conflict_action(request: HtmxRequest, pair_id: int, choice: str) -> HttpResponse:
    pair = access.get_conflict(request.user, pair_id)
    form = MergeForm(request.POST)
    page = reverse("review:conflicts")
    if not form.is_valid():
        return _invalid(request, form, page)
    text = form.cleaned_data["text"].strip() or None
    refused = _run(lambda: actions.resolve_conflict(pair, choice, request.user, text=text))
    if refused:
        return _refused(request, form, refused, page)
    message = CONFLICT_MESSAGES[choice]
    if request.htmx:
        event = NoteEvent.objects.filter(after__pair__id=pair.pk).order_by("-id").first()
        return _card_done(request, "conflict", str(pair.pk), message, event, _conflict_text(pair))
    messages.success(request, message)
    return _back(request, form, page)


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
        return _invalid(request, form, page)

    def may_review(agent_id: str) -> bool:
        return access.may_review(request.user, agent_id)

    refused = _run(lambda: actions.undo(event, request.user, may_review=may_review))
    if refused:
        return _refused(request, form, refused, page)
    kind, key, queue = (form.cleaned_data[k] for k in ("kind", "key", "queue"))
    if request.htmx and kind == "bulk" and queue in BULK_QUEUES:
        keys = form.cleaned_data["keys"]
        cards = _restored_cards(request, queue, keys)
        ctx = {"undone": len(keys), "cards": cards, "queue": queue, "noun": BULK_QUEUES[queue]}
        return _changed(TemplateResponse(request, "review/cards.html#bulk-result", ctx))
    if request.htmx and kind in ROW_TEMPLATES:
        card = _restored_card(request, kind, key)
        if card is not None:
            return _changed(card)
    return _note_done(request, form, note, "Undone.")


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


# --- many cards at once -------------------------------------------------------------

BULK = {
    "quality": {"retire": "Retired", "keep": "Kept"},
    "merges": {"merge": "Merged", "keep_both": "Kept both of", "dismiss": "Dismissed"},
    "conflicts": {"keep_both": "Kept both of"},
}
CARD_KIND = {"quality": "quality", "merges": "merge", "conflicts": "conflict"}


def _restored_cards(request: HttpRequest, queue: str, keys: list[str]) -> list[dict]:
    """Rows for the cards a bulk undo brings back (out-of-band swaps)."""
    if queue == "conflicts":
        pairs = access.conflicts_for(request.user).filter(pk__in=[k for k in keys if k.isdigit()])
        return [{"kind": "conflict", "row": queues.conflict_row(p)} for p in pairs]
    allowed = set(access.agent_ids_for(request.user))
    notes = access.notes_for(request.user).filter(pk__in=keys).select_related("merge_candidate")
    if queue == "merges":
        return [{"kind": "merge", "row": queues.merge_row(n, allowed)} for n in notes]
    return [{"kind": "quality", "row": queues.quality_row(n)} for n in notes]


def _bulk_notes(request: HtmxRequest, ids: list, verb: str) -> tuple[str, list[dict], list[str]]:
    """A bulk action on notes: (group, cards done, reasons for those skipped)."""
    notes = list(access.notes_for(request.user).filter(pk__in=ids).select_related("merge_candidate"))
    if not notes:
        raise ReviewError("Select at least one card first.", status=422)
    allowed = set(access.agent_ids_for(request.user))

    def candidate_for(note: Note) -> Note | None:
        c = note.merge_candidate
        return c if c is not None and c.agent_id in allowed else None

    group, _, skipped = actions.bulk(notes, verb, request.user, candidate_for=candidate_for)
    acted = set(NoteEvent.objects.filter(after__group=group).values_list("note_id", flat=True))
    return group, [{"key": str(n.pk), "text": n.content} for n in notes if n.pk in acted], skipped


def _bulk_conflicts(request: HtmxRequest, ids: list, verb: str) -> tuple[str, list[dict], list[str]]:
    """A bulk decision on conflicts: (group, cards done, reasons for those skipped)."""
    pairs = list(access.conflicts_for(request.user).filter(pk__in=ids).select_related("note_a", "note_b"))
    if not pairs:
        raise ReviewError("Select at least one card first.", status=422)
    group, _, skipped = actions.bulk_conflicts(pairs, verb, request.user)
    acted = set(NoteEvent.objects.filter(after__group=group).values_list("after__pair__id", flat=True))
    return group, [{"key": str(p.pk), "text": _conflict_text(p)} for p in pairs if p.pk in acted], skipped


@login_required
@require_POST
def bulk(request: HtmxRequest, queue: str) -> HttpResponse:
    """One action on the selected cards of a queue, as one undoable group."""
    verbs = BULK.get(queue, {})
    form = BulkForm(request.POST, queue=queue)
    page = reverse(f"review:{queue}") if queue in BULK else reverse("review:dashboard")
    if not form.is_valid():
        return _invalid(request, form, page)
    verb = form.cleaned_data["action"]
    if verb not in verbs:
        return _refused(request, form, ReviewError(f"Unknown action {verb!r} for this queue.", status=422), page)
    try:
        if queue == "conflicts":
            group, done, skipped = _bulk_conflicts(request, form.cleaned_data["ids"], verb)
        else:
            group, done, skipped = _bulk_notes(request, form.cleaned_data["ids"], verb)
    except ReviewError as exc:
        return _refused(request, form, exc, page)
    noun = BULK_QUEUES[queue]
    message = f"{verbs[verb]} {len(done)} {noun}{'s' if len(done) != 1 else ''}."
    if skipped:
        message += f" {len(skipped)} skipped: {skipped[0]}"
    if not request.htmx:
        messages.success(request, message)
        return _back(request, form, page)
    cards = [{"kind": CARD_KIND[queue], **card} for card in done]
    ctx = {"message": message, "event": actions.group_event(group), "done_cards": cards, "queue": queue}
    return _changed(TemplateResponse(request, "review/cards.html#bulk-result", ctx))
