"""Recording a contradiction: a ConflictPair for review, both notes flagged, an event each."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from memories.models import ConflictPair, Note, NoteEvent


def existing_pair(a: Note, b: Note) -> ConflictPair | None:
    """The pair of these two notes in either order, if any."""
    return ConflictPair.objects.filter(Q(note_a=a, note_b=b) | Q(note_a=b, note_b=a)).first()


def record(
    newer: Note,
    older: Note,
    reason: str,
    actor: str,
    *,
    superseded: Note | None = None,
    likelihood: float | None = None,
    opened_by: str = "model",
) -> ConflictPair | None:
    """Open a ConflictPair (A = newer, B = older) and flag both notes; None if the pair is already known.

    ``likelihood``: the offline judge's score (the queue shows the likeliest first); ``opened_by``:
    "rules" (offline), "facts" (a single-valued fact closed) or "model" (an LLM judged it).

    Call inside the caller's transaction. Conflict flags are not part of the
    index, so the notes are not marked dirty.
    """
    if existing_pair(newer, older) is not None:
        return None
    pair = ConflictPair.objects.create(
        note_a=newer, note_b=older, reason=reason, superseded=superseded, likelihood=likelihood, opened_by=opened_by
    )
    for note, other in ((newer, older), (older, newer)):
        # before/after hold the fields an undo may set back (the review app reverts them).
        before = {"conflict": note.conflict, "conflict_reason": note.conflict_reason}
        Note.objects.filter(pk=note.pk).update(conflict=True, evolution_type="CONFLICT", conflict_reason=reason)
        NoteEvent.objects.create(
            note=note,
            action="flag",
            before=before,
            after={
                "conflict": True,
                "conflict_reason": reason,
                "evolution_type": "CONFLICT",
                "conflicts_with": str(other.pk),
                "conflict_pair": pair.pk,
            },
            actor=actor,
        )
    return pair


def retire_superseded(pair: ConflictPair, note: Note, actor: str) -> bool:
    """Auto mode: retire the side the model named and close the pair; False if it is already gone."""
    retired = Note.objects.select_for_update().active().filter(pk=note.pk).first()
    if retired is None:
        return False
    retired.is_active = False
    retired.mark_dirty()
    retired.save(update_fields=["is_active", "index_dirty", "revision", "updated_at"])
    other = pair.note_b_id if pair.note_a_id == note.pk else pair.note_a_id
    NoteEvent.objects.create(
        note=retired,
        action="retire",
        before={"is_active": True},
        after={"is_active": False, "superseded_by": str(other), "reason": pair.reason, "conflict_pair": pair.pk},
        actor=actor,
    )
    pair.superseded = retired
    pair.status = ConflictPair.RESOLVED
    pair.resolution = "auto_retired"
    pair.resolved_at = timezone.now()
    pair.resolved_by = actor
    pair.save(update_fields=["superseded", "status", "resolution", "resolved_at", "resolved_by"])
    return True
