"""Erasing a note from the review app: staff only, shown as irreversible, asked twice.

The first click opens a page that says what goes and that nothing brings it back; the
erase itself needs that page's form, with its "I understand" box ticked. The work is
engine/erasure.py's.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods

from engine import erasure
from engine.curation.actions import actor_for
from review import access


@login_required
@require_http_methods(["GET", "POST"])
def erase_note(request: HttpRequest, note_id: uuid.UUID) -> HttpResponse:
    note = access.get_note(request.user, note_id)
    if not request.user.is_staff:
        raise PermissionDenied("only staff may erase")
    if note.erased_at is not None:
        messages.info(request, "This note was erased already.")
        return redirect("review:note", note.pk)
    if request.method == "POST" and request.POST.get("understood") == "yes":
        done = erasure.erase_note(note.pk, None, actor=actor_for(request.user))
        messages.warning(request, f"The note was erased for good (audit record {done.pk}).")
        return redirect("review:note", note.pk)
    return TemplateResponse(request, "review/erase.html", {"note": note, "asked": request.method == "POST"})
