"""Quality scan (docs/architecture.md §6): flag notes a reviewer should look at; never changes their text.

Reasons, over the notes the agent owns (its private and its shared ones):

* ``too_short``: less text than the write gate takes (engine/text.py ``weighted_length``; the
  gate rejects these, but imports, admin edits and older data can hold them);
* ``expired_ephemeral``: marked ephemeral ("TODO tomorrow") and older than ``ephemeral_days``,
  or a reminder bound to a near moment that has passed (engine/reading/chatter.py);
* ``filler``: small talk with nothing to remember (chatter.py);
* ``vague``, ``gibberish``, ``fragment``: what the text itself says, or fails to
  (engine/maintenance/text_quality.py);
* ``little_to_keep``: none of the above, but the quality model (engine/judgments/note_quality.py)
  finds it likely a reviewer would not keep it: a chit-chat turn with content words in it, a fact
  about "她" that never names her. The model reads a note once per revision
  (``quality_scored_revision``, ``quality_likelihood``): a night reads only new and changed notes
  (``--force``: all, as after a refit). Off with ``AMEM_QUALITY_MODEL=false``, which also forgets
  what it read.

At most ``quality_budget`` notes a night per agent gain ``little_to_keep``, the likeliest first;
the rest wait, with their likelihood, for a later night. On a store of raw chat the model finds a
quarter to a third of the notes (docs/benchmarks.md, "The quality queue within a nightly budget"):
a queue a person cannot read. The rules' reasons are not budgeted: they name the problem and are few.

A note in a conflict is not low quality: it waits in the conflict queue, and counting it here
too would show one decision twice (an older scan's ``pending_conflict`` reason is removed).

The reasons go to ``low_quality_reasons`` (with ``low_quality``), where the review
queue reads them, and each change appends a ``flag`` event. A reason that no longer
holds (the conflict was resolved) is removed; reasons set by anyone else are kept.
A reason a reviewer dismissed ("keep" in the review app, not undone) is not raised
again for that note, except ``pending_conflict`` for a conflict opened after the
dismissal. Neither field is part of the index, so flagged notes are not marked dirty.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from engine.judgments.note_quality import LITTLE_TO_KEEP, flags, likelihoods
from engine.maintenance.runner import Step
from engine.maintenance.text_quality import FRAGMENT, GIBBERISH, VAGUE, text_reasons
from engine.reading import chatter
from engine.text import weighted_length
from memories.models import Note, NoteEvent, Pair

TOO_SHORT, EXPIRED_EPHEMERAL, PENDING_CONFLICT, FILLER = "too_short", "expired_ephemeral", "pending_conflict", "filler"
OURS = (TOO_SHORT, EXPIRED_EPHEMERAL, PENDING_CONFLICT, VAGUE, GIBBERISH, FRAGMENT, FILLER, LITTLE_TO_KEEP)
CHUNK = 500
FIELDS = (
    "pk",
    "content",
    "ephemeral",
    "created_at",
    "low_quality",
    "low_quality_reasons",
    "revision",
    "quality_scored_revision",
    "quality_likelihood",
)


def reasons_for(
    note: Note, *, min_chars: int, expired_before, now, in_open_conflict: bool, learned: bool = False
) -> list[str]:
    """Our reasons that hold for ``note`` now, in a fixed order; none for a note in a conflict.

    ``learned``: the quality model's verdict (engine/judgments/note_quality.py), raised only when
    no rule names what is wrong (a rule's reason says more to the reviewer).
    """
    if in_open_conflict:
        return []
    text = note.content or ""
    reasons = []
    if weighted_length(text) < min_chars:
        reasons.append(TOO_SHORT)
    elif chatter.filler(text):
        reasons.append(FILLER)  # before gibberish: "哈哈哈哈" is laughter, not noise
    else:
        reasons += text_reasons(text)
    if (note.ephemeral and note.created_at < expired_before) or chatter.expired(text, note.created_at, now):
        reasons.append(EXPIRED_EPHEMERAL)
    if learned and not reasons:
        reasons.append(LITTLE_TO_KEEP)
    return reasons


def run(step: Step) -> None:
    cfg = step.cfg
    now = timezone.now()
    expired_before = now - timedelta(days=cfg.ephemeral_days)
    notes = Note.objects.active().filter(owner=step.agent.pk).order_by("pk")
    open_pairs = Pair.objects.open().of_kind(Pair.CONFLICT)
    conflict_since: dict = {}  # note id → when its newest open conflict was found
    for pair in open_pairs.filter(Q(older__owner=step.agent.pk) | Q(newer__owner=step.agent.pk)):
        for pk in (pair.older_id, pair.newer_id):
            conflict_since[pk] = max(conflict_since.get(pk, pair.created_at), pair.created_at)
    dismissed = _dismissed(step.agent.pk)
    step.grow(notes.count())
    if not cfg.quality_model:
        # The model's verdicts are dropped below; forget that it read these notes, so switching it
        # back on reads them again instead of trusting verdicts nobody stored.
        notes.exclude(quality_scored_revision=None).update(quality_scored_revision=None, quality_likelihood=None)
    force = bool(step.options.get("force"))  # after a refit: read every note again
    batch: list[tuple[Note, list[str]]] = []
    waiting: list[tuple[float, Note, list[str]]] = []  # the model's new flags, for the night's budget
    for chunk in _chunks(notes.only(*FIELDS).iterator(chunk_size=CHUNK)):
        learned = _learned(step, chunk, force=force) if cfg.quality_model else {}
        for note in chunk:
            for change in _changes(
                step, note, cfg, now, expired_before, conflict_since, dismissed, learned.get(note.pk)
            ):
                if LITTLE_TO_KEEP in change[1] and LITTLE_TO_KEEP not in (note.low_quality_reasons or []):
                    waiting.append((learned.get(note.pk) or 0.0, *change))
                else:
                    batch.append(change)
            if len(batch) >= CHUNK:
                _save(step, batch)
                batch = []
    _save(step, batch + _within_budget(step, waiting, cfg.quality_budget))


def _within_budget(step: Step, waiting: list[tuple[float, Note, list[str]]], budget: int) -> list:
    """The model's new flags that fit tonight's budget, the likeliest first; the others' changes
    without ``little_to_keep`` (a rule's reason that came or went is still saved). A note left out
    keeps its likelihood and competes again next night."""
    waiting.sort(key=lambda item: -item[0])
    changes = [(note, wanted) for _, note, wanted in waiting[:budget]]
    if changes:
        step.count(LITTLE_TO_KEEP, len(changes))
    for _, note, wanted in waiting[budget:]:
        step.count("over_budget")
        rest = [r for r in wanted if r != LITTLE_TO_KEEP]
        if rest != list(note.low_quality_reasons or []) or note.low_quality != bool(rest):
            changes.append((note, rest))
    return changes


def _chunks(notes: Iterator[Note]) -> Iterator[list[Note]]:
    chunk: list[Note] = []
    for note in notes:
        chunk.append(note)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _learned(step: Step, chunk: list[Note], *, force: bool) -> dict:
    """Note id → the quality model's likelihood: read anew for notes changed since it last read them
    (every note with ``force``), the stored one for the rest. The new reads are stored at once with
    their revision (a stamp does not move a note's revision, so a note changed meanwhile is read
    again next night)."""
    fresh = [n for n in chunk if force or n.quality_scored_revision != n.revision or n.quality_likelihood is None]
    read = {n.pk: n.quality_likelihood for n in chunk}
    if fresh:
        read.update(zip([n.pk for n in fresh], likelihoods([n.content or "" for n in fresh]), strict=True))
        step.count("read_by_model", len(fresh))
        with transaction.atomic():
            for note in fresh:
                Note.objects.filter(pk=note.pk, revision=note.revision).update(
                    quality_scored_revision=note.revision, quality_likelihood=read[note.pk]
                )
    return read


def _changes(
    step: Step, note: Note, cfg, now, expired_before, conflict_since: dict, dismissed: dict, likelihood: float | None
):
    """``[(note, wanted reasons)]`` when the note's stored reasons are no longer ours, else ``[]``."""
    step.count("scanned")
    step.advance()
    current = reasons_for(
        note,
        min_chars=cfg.quality_min_chars,
        expired_before=expired_before,
        now=now,
        in_open_conflict=note.pk in conflict_since,
        learned=flags(likelihood),
    )
    if note.pk in dismissed:
        reasons, at = dismissed[note.pk]
        reopened = conflict_since.get(note.pk, at) > at
        current = [r for r in current if r not in reasons or (r == PENDING_CONFLICT and reopened)]
    stored = list(note.low_quality_reasons or [])
    wanted = [r for r in stored if r not in OURS] + current
    if wanted == stored and note.low_quality == bool(wanted):
        return []
    for reason in set(current) - set(stored) - {LITTLE_TO_KEEP}:  # the model's: counted if it fits the budget
        step.count(reason)
    return [(note, wanted)]


def _dismissed(agent_id: str) -> dict:
    """Note id → (reasons a reviewer dismissed with "keep", when), from events not undone since."""
    mine = NoteEvent.objects.filter(note__owner=agent_id)
    undone = set(mine.filter(after__has_key="undo_of").values_list("after__undo_of", flat=True))
    keeps = mine.filter(action="review", after__op="keep").order_by("created_at", "pk")
    return {
        note_id: (set((before or {}).get("low_quality_reasons") or []), at)
        for pk, note_id, before, at in keeps.values_list("pk", "note_id", "before", "created_at")
        if pk not in undone
    }


def _save(step: Step, changes: list[tuple[Note, list[str]]]) -> None:
    with transaction.atomic():
        for note, wanted in changes:
            # Only if nobody changed the note since it was read; the next scan sees the new state.
            changed = Note.objects.filter(pk=note.pk, revision=note.revision).update(
                low_quality=bool(wanted), low_quality_reasons=wanted
            )
            if not changed:
                continue
            NoteEvent.objects.create(
                note_id=note.pk,
                action="flag",
                before={"low_quality": note.low_quality, "low_quality_reasons": list(note.low_quality_reasons or [])},
                after={"low_quality": bool(wanted), "low_quality_reasons": wanted},
                actor=step.actor,
            )
            step.count("flagged" if wanted else "cleared")
