"""Nightly consolidation (docs/architecture.md §6): an agent's similar memories within a category become one.

Over the agent's own active memory notes (knowledge notes are reference
material and are skipped; shared notes belong to everyone and are skipped;
notes pending a merge decision wait for it): pairs within one category at
cosine ≥ ``consolidate_sim`` (0.75), the ``consolidate_pairs`` (15) best, judged
by the strong tier's should-merge. Merges go through the shared routine: the
longer note wins and takes the merged text, the other is retired, links are
re-pointed to the winner, retrieval counts summed, sources unioned.
"""

from __future__ import annotations

from engine.maintenance.merge import access_key, merge_best_pairs
from engine.maintenance.runner import Step
from memories.models import Note, Pair, waiting_q


def run(step: Step) -> None:
    cfg = step.cfg
    notes = (
        Note.objects.active()
        .filter(agent_id=step.agent.pk, note_type=Note.MEMORY)
        .exclude(waiting_q(Pair.MERGE, as_newer=True))
    )
    step.count("notes", notes.count())
    merge_best_pairs(
        step,
        notes,
        threshold=cfg.consolidate_sim,
        limit=cfg.consolidate_pairs,
        key=lambda n: (n.category, *access_key(n)),
    )
