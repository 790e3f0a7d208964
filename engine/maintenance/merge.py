"""The one merge routine: pending-merge resolution, same-day merge and consolidation all use it.

Two notes become one: the *winner* takes the merged text through the write
path's fold (engine/write/fold.py: old state kept in a ``fold`` event, fields
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

import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace

from django.db import transaction
from django.db.models import QuerySet

from engine import runtime
from engine.config import get_config
from engine.errors import AmemError
from engine.index_sync import outbox
from engine.llm.types import NoteFields
from engine.maintenance import vectors
from engine.maintenance.runner import Step
from engine.text import check_content, normalise
from engine.write.construct import construct, recipe_vectors
from engine.write.fold import FoldPlan, apply_fold
from memories import access
from memories.models import Agent, Link, Note, NoteEvent


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
        fields, ok = step.llm("construct", lambda: construct(checked.text, step.agent.pk, note_type=winner.note_type))
        if not ok:
            return None
        fields = keep_category(fields, winner)
        vector = recipe_vectors([(checked.text, fields)])[0]
        fold = FoldPlan(winner, winner.revision, loser.content, checked.text, checked.ephemeral, fields, vector)
    return MergePlan(fold, loser, loser.revision, verdict)


def keep_category(fields: NoteFields, winner: Note) -> NoteFields:
    """A merge keeps the kept note's category: the merged text is that note's, grown."""
    return replace(fields, category=winner.category)


def plan_decided(agent: Agent, winner: Note, loser: Note, text: str) -> MergePlan:
    """The merge a person decided on (review app), writing exactly ``text``: what the card
    previewed (engine/reading/merged_text.py) or the reviewer's edit. The winner keeps its category.

    Raises AmemError when that text cannot be stored (empty, too short, too long).
    """
    cfg = get_config()
    checked = check_content(text, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars)
    if normalise(checked.text) == normalise(winner.content):
        fold = FoldPlan(winner, winner.revision, loser.content, winner.content, winner.ephemeral)
    else:
        fields = keep_category(construct(checked.text, agent.pk, note_type=winner.note_type), winner)
        vector = recipe_vectors([(checked.text, fields)])[0]
        fold = FoldPlan(winner, winner.revision, loser.content, checked.text, checked.ephemeral, fields, vector)
    return MergePlan(fold, loser, loser.revision, "")


def apply(step: Step, merge_plan: MergePlan, *, pair: tuple[dict, dict] | None = None) -> Note | None:
    """Carry out a job's merge in one transaction; None (nothing written) if either note moved meanwhile.
    ``pair``: the before/after state of the pair the merge decides (an undo opens it again)."""
    return merge_notes(merge_plan, agent_id=step.agent.pk, actor=step.actor, tags={"job": step.job}, pair=pair)


def merge_notes(
    merge_plan: MergePlan,
    *,
    agent_id: str,
    actor: str,
    tags: dict,
    loser_changes: dict | None = None,
    pair: tuple[dict, dict] | None = None,
) -> Note | None:
    """The merge itself, for jobs and the review app; None (nothing written) if either note moved.

    ``tags`` go into every event (``job`` for a job; ``op`` and ``group`` for a review);
    ``loser_changes`` are further fields the loser's retire event records and sets (a
    review clears flags); ``pair`` is the decided pair's before/after state, kept on that event.
    """
    group = tags.get("group") or uuid.uuid4().hex
    tags = {**tags, "group": group}
    with transaction.atomic():
        loser = Note.objects.select_for_update().filter(pk=merge_plan.loser.pk).first()
        if loser is None or loser.revision != merge_plan.loser_revision or not access.can_write(agent_id, loser):
            return None
        # One group id on the merge's events: the review app undoes them together
        # (the winner's text from its fold event, the loser back to active).
        winner = apply_fold(merge_plan.fold, list(loser.sources or []), agent_id, actor, tags=tags)
        if winner is None:
            return None
        counts_before = {"retrieval_count": winner.retrieval_count, "evolution_type": winner.evolution_type}
        winner.retrieval_count += loser.retrieval_count
        if loser.last_accessed and (winner.last_accessed is None or loser.last_accessed > winner.last_accessed):
            winner.last_accessed = loser.last_accessed
        if merge_plan.verdict:
            winner.evolution_type = merge_plan.verdict
        winner.save(update_fields=["retrieval_count", "last_accessed", "evolution_type", "updated_at"])
        repointed, copied = _move_links(loser, winner, agent_id, actor)

        extra = {k: v for k, v in (loser_changes or {}).items() if k not in RETIRE_FIELDS}
        loser_before: dict = {
            "is_active": True,
            "merged_into": None,
            **{k: _value(loser, k) for k in extra},
        }
        loser.is_active = False
        loser.merged_into = winner
        for key, value in extra.items():
            setattr(loser, f"{key}_id" if key in FOREIGN_KEYS else key, value)
        loser.mark_dirty()
        loser.save()
        loser_after: dict = {
            "is_active": False,
            "merged_into": str(winner.pk),
            **{k: _value(loser, k) for k in extra},
            **tags,
        }
        if pair is not None:
            loser_before["pair"], loser_after["pair"] = pair
        NoteEvent.objects.create(
            note=winner,
            action="consolidate",
            after={
                "merged": str(loser.pk),
                "verdict": merge_plan.verdict,
                "before": counts_before,
                "retrieval_count": winner.retrieval_count,
                "evolution_type": winner.evolution_type,
                "links_repointed": repointed,
                "links_copied": copied,
                **tags,
            },
            actor=actor,
        )
        NoteEvent.objects.create(note=loser, action="retire", before=loser_before, after=loser_after, actor=actor)
        outbox.sync_after_commit([winner.pk, loser.pk])
    return winner


# The loser's fields every merge sets; a caller's ``loser_changes`` add to them.
RETIRE_FIELDS = {"is_active", "merged_into"}
FOREIGN_KEYS = {"merged_into"}


def _value(note: Note, field: str) -> object:
    """A field as an event records it (foreign keys as id strings)."""
    if field in FOREIGN_KEYS:
        value = getattr(note, f"{field}_id")
        return str(value) if value is not None else None
    return getattr(note, field)


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


# --- pairs of similar notes (same-day merge, consolidation) --------------------------------

PAIR_FIELDS = (
    "pk",
    "content",
    "created_at",
    "embedding",
    "embedding_model",
    "category",
    "note_type",
    "subjects",
    "readers",
    "writers",
    "revision",
    "merge_checked_revision",
)


def access_key(note: Note) -> tuple:
    """Notes merge only with notes about the same subjects, readable and writable by the same agents."""
    return (tuple(sorted(note.subjects or [])), tuple(sorted(note.readers or [])), tuple(sorted(note.writers or [])))


def merge_best_pairs(
    step: Step, notes: QuerySet[Note], *, threshold: float, limit: int, key: Callable[[Note], object]
) -> None:
    """Judge the ``limit`` most similar pairs (same ``key``) and merge those the model says are one.

    A pair the model keeps apart is remembered on both notes (``merge_checked_revision``)
    and not offered again until one of them changes, so the best pairs of
    yesterday never crowd out the rest. Offline, a pair must reach the fold
    threshold (``dedup_fold_sim``): the rule-based stand-in merges by keeping both
    texts, which is only right for near-duplicates.
    """
    llm = runtime.llm()
    if llm.is_offline("should_merge"):
        threshold = max(threshold, step.cfg.dedup_fold_sim)
    kept, matrix = vectors.load(list(notes.only(*PAIR_FIELDS).order_by("created_at", "pk")))
    fresh = [n.merge_checked_revision != n.revision for n in kept]
    groups = vectors.group_ids([key(n) for n in kept])
    pairs = vectors.best_pairs(matrix, threshold, limit, groups=groups, fresh=fresh)
    step.count("pairs", len(pairs))
    step.grow(len(pairs))
    used: set = set()
    for _, i, j in pairs:
        step.advance()
        if kept[i].pk in used or kept[j].pk in used:
            step.count("skipped")  # one side was merged earlier in this run: the pair is stale
            continue
        current = {n.pk: n for n in Note.objects.active().filter(pk__in=(kept[i].pk, kept[j].pk))}
        a, b = current.get(kept[i].pk), current.get(kept[j].pk)
        if a is None or b is None or a.revision != kept[i].revision or b.revision != kept[j].revision:
            step.count("changed_meanwhile")
            continue
        winner, loser = winner_of(a, b)
        decision, ok = step.llm(
            "should_merge",
            lambda: llm.should_merge(winner.content, loser.content, agent_id=step.agent.pk),  # noqa: B023 (called at once)
        )
        if not ok:
            continue
        if not decision.should_merge:
            for note in (a, b):
                Note.objects.filter(pk=note.pk, revision=note.revision).update(merge_checked_revision=note.revision)
            step.count("kept_apart")
            continue
        merge_plan = plan(step, winner, loser, decision.merged)
        if merge_plan is None:
            step.count("unusable")
            continue
        if apply(step, merge_plan) is None:
            step.count("changed_meanwhile")
            continue
        used.update((a.pk, b.pk))
        step.count("merged")
