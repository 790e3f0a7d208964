"""The pair flow's decisions on one card (POST only, CSRF-checked), the same four on both queues:
same fact, newer replaces older, both true, not related (engine/curation/actions.py).

Each post carries the versions its card showed; a card drawn before one of its notes changed
is refused and drawn again as the notes are now (answers.stale), so nothing is overwritten.
The done card says what was kept, in the notes' own words, from what the action says it did.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.urls import reverse
from django.utils.text import Truncator
from django.views.decorators.http import require_POST

from engine.curation import actions
from engine.curation.actions import PAIR_DECISIONS, ReviewError, StaleCard
from review import access
from review.forms import DecisionForm
from review.views.answers import back, card_done, invalid, refused, stale
from review.views.common import HtmxRequest


def quoted(text: str, words: int = 16) -> str:
    return f"“{Truncator(' '.join(text.split())).words(words)}”"


def decided(result: actions.Decided) -> str:
    """What a decision did, with the texts kept (a merge's older note holds the merged text)."""
    older, newer = result.older, result.newer
    if result.decision == "same" and older is not None:
        return f"Same fact: merged into the older note, which now says {quoted(older.content, 30)}."
    if result.decision == "replace" and older is not None:
        return f"The newer replaces the older: kept {quoted(newer.content)}; retired {quoted(older.content)}."
    if result.decision == "both":
        return "Both true: kept both" + (f", {quoted(older.content)} and {quoted(newer.content)}." if older else ".")
    return "Not related: kept both, and recorded that they are about different things."


def _texts(result: actions.Decided) -> str:
    """The two texts as the card showed them."""
    if result.older_text is None:
        return result.newer.content
    return f"Older: {result.older_text}\nNewer: {result.newer.content}"


def _decision(request: HtmxRequest, decision: str, page: str) -> tuple[DecisionForm, str | None, HttpResponse | None]:
    """The cleaned post (form, text for "same fact"), or the answer refusing it."""
    form = DecisionForm(request.POST)
    if decision not in PAIR_DECISIONS:
        error = ReviewError(f"Unknown decision {decision!r}; choose one of {', '.join(PAIR_DECISIONS)}.", 422)
        return form, None, refused(request, form, error, page)
    if not form.is_valid():
        return form, None, invalid(request, form, page)
    text = form.cleaned_data["text"].strip() if decision == "same" else ""
    return form, text or None, None


PAGES = {"merge": "review:merges", "conflict": "review:conflicts"}


@login_required
@require_POST
def pair(request: HtmxRequest, pair_id: int, decision: str) -> HttpResponse:
    """A decision on a pair card (a pending merge or a conflict: one flow)."""
    found = access.get_pair(request.user, pair_id)
    page = reverse(PAGES[found.kind])
    form, text, answer = _decision(request, decision, page)
    if answer is not None:
        return answer
    try:
        result = actions.decide(
            found,
            decision,
            request.user,
            text=text,
            shown=form.cleaned_data["shown"] or None,
            older_hidden=access.older_hidden(found, set(access.agent_ids_for(request.user))),
        )
    except StaleCard as exc:
        return stale(request, form, found.kind, str(found.pk), exc, page)
    except ReviewError as exc:
        return refused(request, form, exc, page)
    message = decided(result)
    if request.htmx:
        return card_done(request, found.kind, str(found.pk), message, result.event, _texts(result))
    messages.success(request, message)
    return back(request, form, page)
