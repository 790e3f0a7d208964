"""The dashboard's model-call summary: what the model cost per write, and when it fell back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.db.models import Avg, Count, Q, Sum
from django.utils import timezone

from engine.llm.usage import FELL_BACK
from memories.models import LlmCall, NoteEvent

WINDOW = timedelta(hours=24)
# The events that write a note: its creation by any path. The dashboard's "written" counts and the
# model cost per note written both count these, so the two agree (a dated write keeps the date it
# tells of as created_at, which a count by created_at missed).
WRITE_EVENTS = ("create", "import", "episode", "reflection")


def model_calls(agent_ids: Sequence[str]) -> dict:
    """Per role over the last 24 hours: calls, how many fell back, mean tokens and latency; per write too."""
    since = timezone.now() - WINDOW
    calls = LlmCall.objects.filter(agent_id__in=agent_ids, created_at__gte=since)
    roles = list(
        calls.values("role")
        .annotate(
            calls=Count("pk"),
            offline=Count("pk", filter=Q(outcome="offline")),
            fell_back=Count("pk", filter=Q(outcome__in=FELL_BACK)),
            tokens_in=Avg("tokens_in"),
            tokens_out=Avg("tokens_out"),
            latency_ms=Avg("latency_ms"),
        )
        .order_by("role")
    )
    totals = calls.aggregate(
        tokens=Sum("tokens_in") + Sum("tokens_out"), model=Count("pk", filter=~Q(outcome="offline"))
    )
    writes = NoteEvent.objects.filter(
        action__in=WRITE_EVENTS, note__agent_id__in=agent_ids, created_at__gte=since
    ).count()
    return {
        "roles": roles,
        "fell_back": sum(r["fell_back"] for r in roles),
        "writes": writes,
        "calls_per_write": (totals["model"] or 0) / writes if writes else None,
        "tokens_per_write": (totals["tokens"] or 0) / writes if writes else None,
    }
