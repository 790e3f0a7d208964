"""Opening and closing a pair of notes for a person: the one place that writes ``Pair`` rows
(memories/models/notes.py) outside the review app's decisions (engine/curation/actions.py).

A pair is opened once: two notes that have had a pair (open or decided, either kind, either
order) never get another, so a person is never asked the same question twice. Opening writes
a history event on both notes; a conflict also marks both notes' ``evolution_type``. Nothing
is copied onto the notes: whether a note waits is read from its open pairs.
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from memories.models import Note, NoteEvent, Pair


def state(pair: Pair) -> dict:
    """A pair's decision as a note event records it (``before``/``after`` under "pair"), so an
    undo of that event can open the pair again (engine/curation/actions.py ``undo``)."""
    return {
        "id": pair.pk,
        "status": pair.status,
        "resolution": pair.resolution,
        "superseded": str(pair.superseded_id) if pair.superseded_id else None,
        "resolved_by": pair.resolved_by,
        "resolved_at": pair.resolved_at.isoformat() if pair.resolved_at else None,
    }


def set_state(pair: Pair, recorded: dict) -> None:
    """Put a pair back to a state ``state`` recorded."""
    pair.status, pair.resolution, pair.resolved_by = recorded["status"], recorded["resolution"], recorded["resolved_by"]
    pair.superseded_id = recorded["superseded"]
    pair.resolved_at = datetime.fromisoformat(recorded["resolved_at"]) if recorded["resolved_at"] else None
    pair.save()


def known(a: Note, b: Note) -> bool:
    """Whether these two notes have had a pair, in either order."""
    return Pair.objects.between(a, b).exists()


def open_pair(
    older: Note,
    newer: Note,
    *,
    kind: str,
    actor: str,
    reason: str = "",
    guess: str = "",
    likelihood: float | None = None,
    similarity: float | None = None,
    opened_by: str = "model",
    model_version: str = "",
    superseded: Note | None = None,
) -> Pair | None:
    """Open a pair (``newer`` compared against ``older``); None if the two already have one.

    ``likelihood``: the offline judge's score (the conflict queue shows the likeliest first);
    ``opened_by``: "rules" (offline), "facts" (a single-valued fact closed), "model" (an LLM judged
    it), "write" (a similar note waiting for the model's judge). Call inside the caller's
    transaction. A pair is not part of the index, so the notes are not marked dirty.
    """
    if known(older, newer):
        return None
    try:
        with transaction.atomic():  # a concurrent opener of the same two notes loses cleanly
            pair = Pair.objects.create(
                kind=kind,
                older=older,
                newer=newer,
                reason=reason,
                guess=guess,
                likelihood=likelihood,
                similarity=similarity,
                opened_by=opened_by,
                model_version=model_version,
                superseded=superseded,
            )
    except IntegrityError:
        return None
    _opened(pair, reason, actor)
    return pair


def _opened(pair: Pair, reason: str, actor: str) -> None:
    """Say in both notes' history that they wait in ``pair.kind``'s queue; a conflict also marks
    both notes' ``evolution_type``."""
    if pair.kind == Pair.CONFLICT:
        Note.objects.filter(pk__in=(pair.older_id, pair.newer_id)).update(evolution_type="CONFLICT")
    for note_id, other_id in ((pair.newer_id, pair.older_id), (pair.older_id, pair.newer_id)):
        NoteEvent.objects.create(
            note_id=note_id,
            action="flag",
            after={
                "op": "open_pair",
                "queue": pair.kind,
                "waits_beside": str(other_id),
                "reason": reason,
                "pair_id": pair.pk,
            },
            actor=actor,
        )


def to_conflict(
    pair: Pair, reason: str, actor: str, *, likelihood: float | None = None, opened_by: str = "model"
) -> bool:
    """A waiting merge pair judged a change after all: it moves to the conflict queue. False when
    it was decided meanwhile."""
    moved = Pair.objects.filter(pk=pair.pk, status=Pair.OPEN, kind=Pair.MERGE).update(
        kind=Pair.CONFLICT, reason=reason, likelihood=likelihood, opened_by=opened_by, guess="change"
    )
    if moved:
        pair.kind = Pair.CONFLICT
        _opened(pair, reason, actor)
    return bool(moved)


def model_conflict(
    older: Note,
    newer: Note,
    *,
    reason: str,
    superseded: Note | None,
    actor: str,
    auto: bool,
    likelihood: float | None = None,
    similarity: float | None = None,
) -> tuple[Pair | None, bool]:
    """A contradiction a model found: a conflict it decided, and with ``auto`` the side it named
    outdated retired (the pair closed). (the pair, or None when the two already have one; whether
    a note was retired.) Call inside the caller's transaction."""
    pair = open_pair(
        older,
        newer,
        kind=Pair.CONFLICT,
        actor=actor,
        reason=reason,
        guess="change",
        likelihood=likelihood,
        similarity=similarity,
        opened_by="model",
        superseded=superseded,
    )
    retired = pair is not None and auto and superseded is not None and retire_superseded(pair, superseded, actor)
    return pair, retired


def read_by_model(older: Note, newer: Note, *, actor: str, similarity: float | None = None) -> Pair | None:
    """A pair the model read and found nothing in: recorded as decided ("distinct"), never shown, so
    no sweep asks about it again; None when the two already have a pair."""
    if known(older, newer):
        return None
    return Pair.objects.create(
        older=older,
        newer=newer,
        kind=Pair.CONFLICT,
        similarity=similarity,
        opened_by="model",
        status=Pair.RESOLVED,
        resolution="distinct",
        resolved_by=actor,
        resolved_at=timezone.now(),
    )


def close(pair: Pair, resolution: str, actor: str, *, superseded: Note | None = None, reason: str = "") -> bool:
    """A machine's decision on an open pair (a person's go through engine/curation/actions.py),
    said in the newer note's history. False when it was decided meanwhile."""
    closed = Pair.objects.filter(pk=pair.pk, status=Pair.OPEN).update(
        status=Pair.RESOLVED,
        resolution=resolution,
        resolved_by=actor,
        resolved_at=timezone.now(),
        superseded=superseded,
    )
    if closed:
        NoteEvent.objects.create(
            note_id=pair.newer_id,
            action="flag",
            after={"op": "close_pair", "resolution": resolution, "reason": reason, "pair_id": pair.pk},
            actor=actor,
        )
    return bool(closed)


def retire_superseded(pair: Pair, note: Note, actor: str) -> bool:
    """Auto mode: retire the side the model named and close the pair; False if it is already gone."""
    retired = Note.objects.select_for_update().active().filter(pk=note.pk).first()
    if retired is None:
        return False
    retired.is_active = False
    retired.mark_dirty()
    retired.save(update_fields=["is_active", "index_dirty", "revision", "updated_at"])
    other = pair.older_id if pair.newer_id == note.pk else pair.newer_id
    NoteEvent.objects.create(
        note=retired,
        action="retire",
        before={"is_active": True},
        after={"is_active": False, "superseded_by": str(other), "reason": pair.reason, "pair_id": pair.pk},
        actor=actor,
    )
    close(pair, "auto_retired", actor, superseded=retired)
    return True
