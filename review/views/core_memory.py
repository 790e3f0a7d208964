"""The core-memory page: an agent's blocks with their history; a reviewer edits a block or undoes a change.

Every change goes through engine/layers/core.py, so the size limit and the history
are the same as for the agent API.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from engine.errors import AmemError
from engine.layers import core
from memories.models import CoreBlock, CoreEvent
from review import access
from review.forms import CoreBlockForm
from review.views.common import fresh


@login_required
@require_GET
def page(request: HttpRequest, agent_id: str) -> HttpResponse:
    return _page(request, access.get_agent_id(request.user, agent_id))


def _page(request: HttpRequest, agent_id: str, typed: dict[int, str] | None = None, status: int = 200) -> HttpResponse:
    """The blocks with their history; ``typed`` puts text the reviewer typed back in its box (a refused save)."""
    typed = typed or {}
    blocks = CoreBlock.objects.filter(agent_id=agent_id).order_by("subject", "name")
    rows = []
    for block in blocks:
        events = list(block.events.order_by("-created_at", "-id")[:20])
        latest = next((e for e in events if e.undone_by_id is None), None)
        rows.append(
            {
                "block": block,
                "text": typed.get(block.pk, json.dumps(block.value, ensure_ascii=False, indent=2)),
                "size": core.size_of(block.value),
                "events": events,
                # Only the newest change (an undo too) can be undone while the block still holds its result.
                "undoable": latest.pk if latest is not None and latest.after == block.value else None,
            }
        )
    context = {
        "agent_id": agent_id,
        "agents": access.agent_ids_for(request.user),
        "rows": rows,
        "limit": core.limit_bytes(),
    }
    return fresh(TemplateResponse(request, "review/core_memory.html", context, status=status))


def _back(block: CoreBlock) -> HttpResponse:
    return redirect(reverse("review:core", args=[block.agent_id]) + f"#block-{block.pk}")


@login_required
@require_POST
def edit(request: HttpRequest, block_id: int) -> HttpResponse:
    """Replace a block; a refused value (not JSON, over the limit) keeps the typed text, with the reason, 422."""
    block = get_object_or_404(CoreBlock, pk=block_id)
    access.get_agent_id(request.user, block.agent_id)
    form = CoreBlockForm(request.POST)
    error = ""
    if not form.is_valid():
        error = " ".join(str(e) for errs in form.errors.values() for e in errs)
    else:
        try:
            core.review_edit(block, form.cleaned_data["value"], f"review:{request.user.get_username()}")
        except AmemError as exc:
            error = f"{exc}. Your text is still in the box."
    if error:
        messages.error(request, error)
        return _page(request, block.agent_id, typed={block.pk: form["value"].value() or ""}, status=422)
    messages.success(request, f"Block {block.name} saved.")
    return _back(block)


@login_required
@require_POST
def undo(request: HttpRequest, event_id: int) -> HttpResponse:
    """Undo a change (the page asks first); the undo is itself the newest change, and undoable."""
    event = get_object_or_404(CoreEvent.objects.select_related("block"), pk=event_id)
    access.get_agent_id(request.user, event.block.agent_id)
    try:
        core.undo(event, f"review:{request.user.get_username()}")
    except AmemError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Change to {event.block.name} undone; Undo again puts it back.")
    return _back(event.block)
