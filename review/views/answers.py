"""How a review post answers: the partial it replaces (htmx) or a redirect with a message (plain post).

Shared by posts.py (one note, undo), decisions.py (the pair flow) and bulk.py.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import reswap, retarget, trigger_client_event

from engine.curation.actions import ReviewError, StaleCard
from memories.models import NoteEvent
from review.forms import BackForm
from review.views import queues
from review.views.common import HtmxRequest


def back(request: HttpRequest, form: BackForm, default: str) -> HttpResponse:
    """Post/Redirect/Get: to the form's ``next`` when it is a page of this site, else ``default``."""
    target = form.cleaned_data.get("next", "") if form.is_valid() else ""
    if not target or not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = default
    return redirect(target)


def refused(request: HtmxRequest, form: BackForm, exc: ReviewError, default: str) -> HttpResponse:
    """Nothing changed: htmx gets the reason in #messages (409/422), a plain post a message and a redirect."""
    if request.htmx:
        response = TemplateResponse(request, "review/messages.html", {"errors": [str(exc)]}, status=exc.status)
        return reswap(retarget(response, "#messages"), "innerHTML")
    messages.error(request, str(exc))
    return back(request, form, default)


def invalid(request: HtmxRequest, form: BackForm, default: str) -> HttpResponse:
    """A post whose fields do not clean: the form's own words, status 422."""
    errors = [str(e) for errs in form.errors.values() for e in errs]
    return refused(request, form, ReviewError(" ".join(errors) or "The form is not valid.", status=422), default)


def stale(request: HtmxRequest, form: BackForm, kind: str, key: str, exc: StaleCard, default: str) -> HttpResponse:
    """A card drawn before one of its notes changed: nothing was written; htmx gets the card as it
    is now (409, saying so on the card), a plain post a message and a redirect."""
    if request.htmx:
        return queues.card_response(request, kind, key, status=exc.status, stale=True)
    messages.error(request, str(exc))
    return back(request, form, default)


def changed(response: HttpResponse) -> HttpResponse:
    """Tell the page a queue changed: the menu's count badges re-fetch themselves."""
    trigger_client_event(response, "queue-changed", {})
    return response


def card_done(
    request: HttpRequest, kind: str, key: str, message: str, group_event: NoteEvent | None, text: str = ""
) -> HttpResponse:
    """A queue card replaced by what happened, the texts (collapsed) and an undo button for it."""
    ctx = {"kind": kind, "key": key, "message": message, "event": group_event, "text": text}
    return changed(TemplateResponse(request, "review/cards.html#done-card", ctx))
