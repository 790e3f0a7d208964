"""pending_merge resolution (docs/architecture.md §6): each flagged note against the note it resembled.

A write whose text was 0.72–0.85 similar to a writable note was inserted with
``pending_merge`` and ``merge_candidate`` (L2.5). Unlike the seed, which
matched it against whatever note of the same UTC day was closest, it is judged
against that very note, whatever day it was written. If the candidate was
merged away since, its winner (``merged_into``) stands in.

The evolution judge (strong tier) decides, old = candidate, new = flagged note:

* EVOLVE / EXPAND: the flagged note is merged into the candidate with the judge's
  merged text (engine/maintenance/merge.py: fold, retire, re-point links);
* CONFLICT: a ConflictPair for review, both notes flagged; the pending flag is cleared;
* NEW: a distinct memory after all; the pending flag is cleared.

A failed model call changes nothing (the note stays pending for the next run).
Offline (provider ``none``) nothing that might disagree is merged or cleared without a person:
the pair judge (engine/judgments/triage.py) folds only a note that adds nothing to its candidate
word for word, turns a likely change into a conflict, and leaves every other pair waiting for a
person with its guess and reason (a pair flagged before guesses existed gets them now).
"""

from __future__ import annotations

from django.db import transaction

from engine import runtime
from engine.annotations import conflicts
from engine.index.embeddings import from_bytes
from engine.judgments import triage
from engine.llm.offline import keep_both
from engine.maintenance import merge
from engine.maintenance.runner import Step
from engine.write.dedup import same_subjects
from memories import access
from memories.models import Note, NoteEvent

MAX_HOPS = 10


def live_candidate(agent_id: str, note: Note) -> Note | None:
    """The note ``note`` should be judged against: its candidate, or what that was merged into."""
    candidate = note.merge_candidate
    for _ in range(MAX_HOPS):
        if candidate is None or candidate.pk == note.pk:
            return None
        if candidate.is_active:
            break
        candidate = candidate.merged_into
    else:
        return None
    if not access.can_write(agent_id, candidate) or not same_subjects(candidate.subjects, note.subjects):
        return None
    return candidate


def run(step: Step) -> None:
    agent_id = step.agent.pk
    pending = list(
        Note.objects.active()
        .filter(owner=agent_id, pending_merge=True)
        .select_related("merge_candidate")
        .order_by("created_at", "pk")
    )
    step.grow(len(pending))
    for note in pending:
        step.advance()
        step.count("pending")
        target = live_candidate(agent_id, note)
        if target is None:
            _clear(step, note, "", "the note it resembled is gone or not writable")
            continue
        if runtime.llm().is_offline("evolution_judge"):
            _offline(step, target, note)
            continue
        judgement, ok = step.llm(
            "evolution_judge",
            lambda: runtime.llm().evolution_judge(target.content, note.content, agent_id=agent_id),  # noqa: B023 (called at once)
        )
        if not ok:
            continue
        if judgement.verdict in ("EVOLVE", "EXPAND"):
            _merge(step, target, note, judgement.merged_content, judgement.verdict)
        elif judgement.verdict == "CONFLICT":
            _conflict(step, target, note, judgement.reason, None, "model")
        else:
            _clear(step, note, "NEW", judgement.reason, against=target)


def _offline(step: Step, target: Note, note: Note) -> None:
    """The judge finds and ranks; only a note that adds nothing is merged, and nothing is cleared."""
    judged = triage.assess(target, note.content, _similarity(target, note), subjects=note.subjects)
    if judged.action == triage.FOLD:
        _merge(step, target, note, keep_both(target.content, note.content), "EXPAND")
    elif judged.action == triage.CONFLICT:
        _conflict(
            step, target, note, f"offline: {judged.reason}", judged.guess.change if judged.guess else None, "rules"
        )
    else:
        if not note.merge_guess:
            Note.objects.filter(pk=note.pk, revision=note.revision).update(
                merge_guess=judged.verdict, merge_reason=judged.reason
            )
        step.count("left_for_review")


def _similarity(a: Note, b: Note) -> float:
    if b.merge_similarity is not None:
        return b.merge_similarity
    x, y = from_bytes(a.embedding), from_bytes(b.embedding)
    return float(x @ y) if x is not None and y is not None else 0.5


def _conflict(step: Step, target: Note, note: Note, reason: str, likelihood: float | None, opened_by: str) -> None:
    with transaction.atomic():
        if _clear(step, note, "CONFLICT", reason, against=target):
            pair = conflicts.record(note, target, reason, step.actor, likelihood=likelihood, opened_by=opened_by)
            step.count("conflicts" if pair is not None else "conflicts_known")


def _merge(step: Step, target: Note, note: Note, merged_text: str, verdict: str) -> None:
    merge_plan = merge.plan(step, target, note, merged_text, verdict=verdict)
    if merge_plan is None:
        step.count("unusable")  # stays pending; a later run (or a reviewer) decides
        return
    if merge.apply(step, merge_plan) is None:
        step.count("changed_meanwhile")
        return
    step.count("merged")


def _clear(step: Step, note: Note, verdict: str, reason: str, *, against: Note | None = None) -> bool:
    """Clear the pending flag (only if the note is unchanged since read); True if cleared."""
    with transaction.atomic():
        fields: dict[str, object] = {"pending_merge": False}
        if verdict:
            fields["evolution_type"] = verdict
        if not Note.objects.filter(pk=note.pk, revision=note.revision, pending_merge=True).update(**fields):
            step.count("changed_meanwhile")
            return False
        NoteEvent.objects.create(
            note=note,
            action="flag",
            before={"pending_merge": True},
            after={
                "pending_merge": False,
                "evolution_type": verdict or note.evolution_type,
                "verdict": verdict,
                "against": str(against.pk) if against else None,
                "reason": reason,
            },
            actor=step.actor,
        )
    if verdict != "CONFLICT":
        step.count("new" if verdict == "NEW" else "cleared")
    return True
