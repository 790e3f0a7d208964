"""Pending-merge resolution (docs/architecture.md §6): each open merge pair, the newer note
against the older one it resembled.

A write whose text was 0.72–0.85 similar to a writable note opens a merge ``Pair`` (L2.5)
when a model is configured. Unlike the seed, which matched it against whatever note of the same
UTC day was closest, it is judged against that very note, whatever day it was written. If the
older note was merged away since, its winner (``merged_into``) stands in.

The evolution judge (strong tier) decides, old = the older note, new = the newer:

* EVOLVE / EXPAND: the newer is merged into the older with the judge's merged text
  (engine/maintenance/merge.py: fold, retire, re-point links); the pair closes as ``merged``;
* CONFLICT: the pair moves to the conflict queue (engine/annotations/pairs.py);
* NEW: a distinct memory after all; the pair closes as ``distinct``.

A failed model call changes nothing (the pair stays open for the next run).
Offline (provider ``none``) nothing that might disagree is merged or closed without a person:
the pair judge (engine/judgments/triage.py) folds only a note that adds nothing to the older
word for word, turns a likely change into a conflict, and leaves every other pair waiting for a
person with its guess and reason (a pair opened before guesses existed gets them now).
"""

from __future__ import annotations

from django.db import transaction

from engine import runtime
from engine.annotations import pairs
from engine.index.embeddings import from_bytes
from engine.judgments import triage
from engine.maintenance import merge
from engine.maintenance.runner import Step
from engine.reading.merged_text import merged_text
from engine.write.dedup import same_subjects
from memories import access
from memories.models import Note, Pair

MAX_HOPS = 10


def live_candidate(agent_id: str, pair: Pair) -> Note | None:
    """The note the pair's newer note should be judged against: the older, or what that was merged into."""
    candidate: Note | None = pair.older
    for _ in range(MAX_HOPS):
        if candidate is None or candidate.pk == pair.newer_id:
            return None
        if candidate.is_active:
            break
        candidate = candidate.merged_into
    else:
        return None
    if not access.can_write(agent_id, candidate) or not same_subjects(candidate.subjects, pair.newer.subjects):
        return None
    return candidate


def run(step: Step) -> None:
    agent_id = step.agent.pk
    waiting = list(
        Pair.objects.open()
        .of_kind(Pair.MERGE)
        .filter(newer__owner=agent_id, newer__is_active=True)
        .select_related("older", "newer")
        .order_by("newer__created_at", "newer_id")
    )
    step.grow(len(waiting))
    for pair in waiting:
        step.advance()
        step.count("pending")
        note = pair.newer
        target = live_candidate(agent_id, pair)
        if target is None:
            _close(step, pair, "gone", "", "the note it resembled is gone or not writable")
            continue
        if runtime.llm().is_offline("evolution_judge"):
            _offline(step, pair, target, note)
            continue
        judgement, ok = step.llm(
            "evolution_judge",
            lambda: runtime.llm().evolution_judge(target.content, note.content, agent_id=agent_id),  # noqa: B023 (called at once)
        )
        if not ok:
            continue
        if judgement.verdict in ("EVOLVE", "EXPAND"):
            _merge(step, pair, target, note, judgement.merged_content, judgement.verdict)
        elif judgement.verdict == "CONFLICT":
            _conflict(step, pair, judgement.reason, None, "model")
        else:
            _close(step, pair, "distinct", "NEW", judgement.reason)


def _offline(step: Step, pair: Pair, target: Note, note: Note) -> None:
    """The judge finds and ranks; only a note that adds nothing is merged, and nothing is closed."""
    judged = triage.assess(target, note.content, _similarity(pair, target, note), subjects=note.subjects)
    if judged.action == triage.FOLD:
        _merge(step, pair, target, note, merged_text(target.content, note.content), "EXPAND")
    elif judged.action == triage.CONFLICT:
        _conflict(step, pair, f"offline: {judged.reason}", judged.guess.change if judged.guess else None, "rules")
    else:
        if not pair.guess:
            Pair.objects.filter(pk=pair.pk, status=Pair.OPEN).update(guess=judged.verdict, reason=judged.reason)
        step.count("left_for_review")


def _similarity(pair: Pair, a: Note, b: Note) -> float:
    if pair.similarity is not None:
        return pair.similarity
    x, y = from_bytes(a.embedding), from_bytes(b.embedding)
    return float(x @ y) if x is not None and y is not None else 0.5


def _conflict(step: Step, pair: Pair, reason: str, likelihood: float | None, opened_by: str) -> None:
    with transaction.atomic():
        moved = pairs.to_conflict(pair, reason, step.actor, likelihood=likelihood, opened_by=opened_by)
    step.count("conflicts" if moved else "changed_meanwhile")


def _merge(step: Step, pair: Pair, target: Note, note: Note, text: str, verdict: str) -> None:
    merge_plan = merge.plan(step, target, note, text, verdict=verdict)
    if merge_plan is None:
        step.count("unusable")  # stays open; a later run (or a reviewer) decides
        return
    # The pair's decision rides on the merge's events, so undoing the merge opens the pair again.
    decided = {**pairs.state(pair), "status": Pair.RESOLVED, "resolution": "merged", "resolved_by": step.actor}
    with transaction.atomic():
        if merge.apply(step, merge_plan, pair=(pairs.state(pair), decided)) is None:
            step.count("changed_meanwhile")
            return
        pairs.close(pair, "merged", step.actor, reason=verdict)
    step.count("merged")


def _close(step: Step, pair: Pair, resolution: str, verdict: str, reason: str) -> None:
    """Close the pair without a merge (the model found the notes distinct, or the older is gone)."""
    with transaction.atomic():
        if not pairs.close(pair, resolution, step.actor, reason=reason):
            step.count("changed_meanwhile")
            return
        if verdict:
            Note.objects.filter(pk=pair.newer_id).update(evolution_type=verdict)
    step.count("new" if verdict == "NEW" else "cleared")
