"""The one merge routine: pending-merge resolution, same-day merge and consolidation all use it.

Two notes become one: the *winner* takes the merged text through the write
path's fold (engine/fold.py: old state kept in a ``fold`` event, fields
re-constructed, re-embedded with the one recipe, sources unioned), and the
*loser* is retired (``is_active=False``, ``merged_into`` the winner), never
deleted. The winner also gets the loser's retrieval count (summed) and latest
access; links into the loser from notes the agent may write are re-pointed to
the winner, and the loser's own links are copied to it. Everything happens in
one transaction: a failure anywhere leaves both notes as they were.

Model calls (the merged text's construction) happen in ``plan`` before the
transaction; ``apply`` re-checks that neither note changed meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from engine.construct import construct, recipe_vectors
from engine.errors import AmemError
from engine.fold import FoldPlan, apply_fold
from engine.maintenance.runner import Step
from engine.text import check_content, normalise
from memories import access
from memories.models import Link, Note, NoteEvent


@dataclass(frozen=True)
class MergePlan:
    fold: FoldPlan
    loser: Note
    loser_revision: int
    verdict: str  # EVOLVE / EXPAND from the judge, "" for a plain merge


def winner_of(a: Note, b: Note) -> tuple[Note, Note]:
    """(winner, loser): the longer text wins, as in the seed; then the older note, then the lower id."""
    ranked = sorted((a, b), key=lambda n: (-len(n.content), n.created_at, str(n.pk)))
    return ranked[0], ranked[1]


def plan(step: Step, winner: Note, loser: Note, merged_text: str, *, verdict: str = "") -> MergePlan | None:
    """The fold of ``loser`` into ``winner`` with ``merged_text``; None if the text is unusable.

    Unusable: it fails the checks a new note must pass, or its construction failed
    (a merged note with blank keywords and tags would be worse than two notes).
    """
    cfg = step.cfg
    try:
        checked = check_content(merged_text, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars)
    except AmemError:
        return None
    if normalise(checked.text) == normalise(winner.content):
        fold = FoldPlan(winner, winner.revision, loser.content, winner.content, winner.ephemeral)
    else:
        fields, ok = step.llm(
            "construct", lambda: construct(checked.text, step.agent.pk, note_type=winner.note_type)
        )
        if not ok:
            return None
        vector = recipe_vectors([(checked.text, fields)])[0]
        fold = FoldPlan(winner, winner.revision, loser.content, checked.text, checked.ephemeral, fields, vector)
    return MergePlan(fold, loser, loser.revision, verdict)


def apply(step: Step, merge_plan: MergePlan) -> Note | None:
    """Carry out the merge in one transaction; None (nothing written) if either note moved meanwhile."""
    agent_id, actor = step.agent.pk, step.actor
    with transaction.atomic():
        loser = Note.objects.select_for_update().filter(pk=merge_plan.loser.pk).first()
        if loser is None or loser.revision != merge_plan.loser_revision or not access.can_write(agent_id, loser):
            return None
        winner = apply_fold(merge_plan.fold, list(loser.sources or []), agent_id, actor)
        if winner is None:
            return None
        before = {"retrieval_count": winner.retrieval_count, "evolution_type": winner.evolution_type}
        winner.retrieval_count += loser.retrieval_count
        if loser.last_accessed and (winner.last_accessed is None or loser.last_accessed > winner.last_accessed):
            winner.last_accessed = loser.last_accessed
        if merge_plan.verdict:
            winner.evolution_type = merge_plan.verdict
        winner.save(update_fields=["retrieval_count", "last_accessed", "evolution_type", "updated_at"])
        repointed, copied = _move_links(loser, winner, agent_id, actor)

        loser.is_active = False
        loser.merged_into = winner
        loser.pending_merge = False
        loser.mark_dirty()
        loser.save(update_fields=["is_active", "merged_into", "pending_merge", "index_dirty", "revision", "updated_at"])

        NoteEvent.objects.create(
            note=winner,
            action="consolidate",
            before=before,
            after={
                "merged": str(loser.pk),
                "job": step.job,
                "verdict": merge_plan.verdict,
                "retrieval_count": winner.retrieval_count,
                "evolution_type": winner.evolution_type,
                "links_repointed": repointed,
                "links_copied": copied,
            },
            actor=actor,
        )
        NoteEvent.objects.create(
            note=loser,
            action="retire",
            before={"is_active": True},
            after={"is_active": False, "merged_into": str(winner.pk), "job": step.job},
            actor=actor,
        )
    return winner


def _move_links(loser: Note, winner: Note, agent_id: str, actor: str) -> tuple[list[str], list[str]]:
    """Re-point writable notes' links from the loser to the winner; copy the loser's own links.

    Returns the ids of the re-pointed sources and of the copied targets. The
    loser keeps its outgoing links (a restore brings the note back whole).
    """
    repointed: list[str] = []
    for link in Link.objects.select_related("source").filter(target=loser).exclude(source=winner):
        if not access.can_write(agent_id, link.source):
            continue  # the owner of that note decides its links
        if Link.objects.filter(source_id=link.source_id, target=winner).exists():
            link.delete()
        else:
            link.target = winner
            link.save(update_fields=["target"])
        repointed.append(str(link.source_id))
    copied: list[str] = []
    for target_id in Link.objects.filter(source=loser).exclude(target=winner).values_list("target_id", flat=True):
        _, created = Link.objects.get_or_create(
            source=winner, target_id=target_id, defaults={"created_by": actor, "reason": "merge"}
        )
        if created:
            copied.append(str(target_id))
    return repointed, copied
