"""Same-day merge (docs/architecture.md §6): today's near-duplicates of an agent become one note.

Runs during the day (the ``daytime`` sequence) for an agent with at least
``same_day_min_notes`` (5) notes written today, not counting notes still
pending a merge decision: its ``same_day_pairs`` (10) most similar pairs at cosine
≥ ``same_day_sim`` (0.80), judged by the strong tier's should-merge. Unlike the
seed (hard delete, vector of the merged text alone), it uses the shared merge
routine: soft retire, the one embedding recipe, links re-pointed, counters summed.
"Today" is the calendar day in ``AMEM_TIME_ZONE``.
"""

from __future__ import annotations

from django.utils import timezone

from engine.maintenance.merge import access_key, merge_best_pairs
from engine.maintenance.runner import Step
from memories.models import Note, Pair, waiting_q


def run(step: Step) -> None:
    cfg = step.cfg
    midnight = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    today = (
        Note.objects.active()
        .filter(agent_id=step.agent.pk, created_at__gte=midnight)
        .exclude(waiting_q(Pair.MERGE, as_newer=True))
    )
    count = today.count()
    step.count("notes_today", count)
    if count < cfg.same_day_min_notes:
        return
    merge_best_pairs(
        step,
        today,
        threshold=cfg.same_day_sim,
        limit=cfg.same_day_pairs,
        key=lambda n: (n.note_type, *access_key(n)),
    )
