"""What a reviewer can do to notes: every action a soft change with a NoteEvent, undoable.

The review app (review/) calls these; it holds views and templates only.

Each action changes a few note fields inside one transaction, marks the note
dirty for the index (the outbox, docs/architecture.md §2), appends an event whose ``before``
and ``after`` hold exactly the fields it changed, and schedules an index sync
after commit. One click that touches two notes (a merge, a conflict decision)
writes one event per note sharing a ``group`` id; undoing any of them undoes the
group. An undo is refused when the note changed since the event (undo the newer
change first), so it never overwrites someone else's later edit.

A decision taken on a queue card names the revisions the card showed (``shown``): when
either note moved since (an earlier merge into the same note, an edit), it is refused with
``StaleCard`` and nothing is written, so a card drawn before a change never writes over it.

Pending merges and conflicts are one pair flow on one record, ``Pair`` (its ``kind`` says the
queue), with four decisions (``PAIR_DECISIONS``): same fact (the newer folds into the older,
which takes the prepared text of engine/reading/merged_text.py), the newer replaces the older
(the older retired), both true (keep both), not related (keep both, recorded as unrelated).
Each closes the pair with the decision as its ``resolution``; an undo opens it again.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from engine.annotations import pairs
from engine.config import get_config
from engine.errors import AmemError
from engine.index_sync import outbox
from engine.maintenance import merge
from engine.maintenance.quality import PENDING_CONFLICT
from engine.reading.merged_text import merged_text
from engine.text import check_content, content_hash
from engine.write.edit import update_memory
from memories.models import Agent, Note, NoteEvent, Pair


class ReviewError(Exception):
    """An action that cannot be done; the message is for the reviewer. Nothing was changed."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Decided:
    """What one pair decision did, for the view to say without reading it back.

    ``older`` and ``newer`` as they are after the decision (a "same fact" older note holds the
    merged text; None when the note it resembled is gone), ``older_text`` the older note's text
    as the card showed it, ``event`` the newest event of the decision's group (undoing it undoes
    the whole decision).
    """

    decision: str
    older: Note | None
    newer: Note
    older_text: str | None
    event: NoteEvent | None


@dataclass(frozen=True)
class BulkDone:
    """One action on many cards: its undo group, the items it was done to, why the others were skipped."""

    group: str
    done: list
    skipped: list[str]


# Note fields an undo may set back. Access fields (owner, readers, writers, subjects, agent_id)
# are not among them: those change in the Django admin only.
REVERTIBLE = {
    "content",
    "keywords",
    "tags",
    "context",
    "category",
    "note_type",
    "topics",
    "sources",
    "is_active",
    "ephemeral",
    "merged_into",
    "low_quality",
    "low_quality_reasons",
}
FOREIGN_KEYS = {"merged_into"}
# Keys of an event's before/after that are not note fields.
META = {"op", "group", "undo_of", "reason", "folded_text", "pair", "superseded_by", "unrelated_to"}
UNDOABLE_ACTIONS = {
    "crud_update",
    "admin_edit",
    "fold",
    "update_neighbor",
    "consolidate",
    "retire",
    "restore",
    "review",
    "flag",
}


def actor_for(user) -> str:
    return f"review:{user.get_username()}"


def _value(note: Note, field: str) -> object:
    if field in FOREIGN_KEYS:
        value = getattr(note, f"{field}_id")
        return str(value) if value is not None else None
    return getattr(note, field)


def _set(note: Note, field: str, value: object) -> None:
    if field in FOREIGN_KEYS:
        setattr(note, f"{field}_id", value)
        return
    setattr(note, field, value)
    if field == "content":
        note.content_hash = content_hash(str(value))
        note.embedding = None  # the indexer re-embeds it with the one recipe


def _change(
    note_id: uuid.UUID | str,
    changes: dict,
    *,
    actor: str,
    op: str,
    group: str,
    action: str = "review",
    pair: tuple[dict, dict] | None = None,
    undo_of: int | None = None,
    extra: dict | None = None,
) -> NoteEvent:
    """Apply ``changes`` to one note under lock, with its event; call inside a transaction.

    ``extra``: what the decision says beyond the fields (``superseded_by``, ``unrelated_to``),
    kept in the event's after-side for the history; an undo does not set it back.
    """
    note = Note.objects.select_for_update().get(pk=note_id)
    before = {f: _value(note, f) for f in changes}
    for field, value in changes.items():
        _set(note, field, value)
    note.mark_dirty()
    note.save()
    after: dict = {**{f: _value(note, f) for f in changes}, **(extra or {}), "op": op, "group": group}
    if pair is not None:
        before["pair"], after["pair"] = pair
    if undo_of is not None:
        after["undo_of"] = undo_of
    event = NoteEvent.objects.create(note=note, action=action, before=before, after=after, actor=actor)
    outbox.sync_after_commit([note.pk])
    return event


def _new_group() -> str:
    return uuid.uuid4().hex


# --- what a card showed -----------------------------------------------------------

# A note id (as a string) → the revision a card showed. Every change a decision makes bumps a
# note's revision (``Note.mark_dirty``), so a card drawn before another decision, an edit or a
# merge touched one of its notes no longer matches, and its decision is refused.
Shown = Mapping[str, int]


class StaleCard(ReviewError):
    """A card showed a note as it was before a later change: nothing was written."""

    def __init__(self) -> None:
        super().__init__(
            "One of these notes changed since this card was drawn (another decision, a merge or an edit); "
            "nothing was written. The card now shows them as they are."
        )


def _check_shown(shown: Shown | None, *notes: Note | None, lock: bool = True) -> None:
    """Refuse (StaleCard) when a note moved since the card showed it. ``lock``: inside the
    decision's transaction, the rows stay locked until it commits."""
    ids = [n.pk for n in notes if n is not None and shown and str(n.pk) in shown]
    if not ids:
        return
    rows = Note.objects.filter(pk__in=ids)
    current = dict((rows.select_for_update() if lock else rows).values_list("pk", "revision"))
    if any(current.get(pk) != (shown or {}).get(str(pk)) for pk in ids):
        raise StaleCard()


def older_newer(a: Note, b: Note) -> tuple[Note, Note]:
    """(older, newer) by when each was written (a dated write keeps its date); a tie keeps the order given."""
    return (b, a) if b.created_at < a.created_at else (a, b)


# --- single-note actions -------------------------------------------------------


def edit_text(note: Note, text: str, user) -> Note:
    """Replace the text through the engine (re-constructed, re-embedded); the event keeps the old state."""
    if not note.is_active:
        raise ReviewError("This note is retired; restore it before editing.")
    if not Agent.objects.filter(pk=note.owner, is_active=True).exists():
        raise ReviewError(f"The note's owner agent {note.owner!r} is not active; edit it in the admin.")
    try:
        return update_memory(note.pk, text, note.owner, actor=actor_for(user), action="review")
    except AmemError as exc:
        raise ReviewError(str(exc), status=422) from exc


def retire(note: Note, user, *, group: str | None = None, shown: Shown | None = None) -> NoteEvent:
    if not note.is_active:
        raise ReviewError("This note is already retired.")
    with transaction.atomic():
        _check_shown(shown, note)
        return _change(
            note.pk,
            {"is_active": False},
            actor=actor_for(user),
            op="retire",
            group=group or _new_group(),
            action="retire",
        )


def restore(note: Note, user) -> NoteEvent:
    if note.is_active:
        raise ReviewError("This note is active already.")
    if note.erased_at is not None:
        raise ReviewError("This note was erased; an erased note cannot be restored.")
    with transaction.atomic():
        return _change(
            note.pk, {"is_active": True}, actor=actor_for(user), op="restore", group=_new_group(), action="restore"
        )


def keep_quality(note: Note, user, *, group: str | None = None, shown: Shown | None = None) -> NoteEvent:
    """Clear a low-quality flag: the reviewer judged the note worth keeping."""
    if not note.low_quality:
        raise ReviewError("This note is not flagged as low quality.")
    changes = {"low_quality": False, "low_quality_reasons": []}
    with transaction.atomic():
        _check_shown(shown, note)
        return _change(note.pk, changes, actor=actor_for(user), op="keep", group=group or _new_group())


# --- pairs (pending merges and conflicts) ------------------------------------------------

# The pair flow's four decisions, the same on both queues (pending merges and conflicts).
PAIR_DECISIONS = ("same", "replace", "both", "unrelated")
# What a decision is called in a note's history (``op``); the pair's own record
# (``Pair.resolution``) stores the decision itself.
OPS = {"same": "merge", "replace": "replace", "both": "keep_both", "unrelated": "not_related"}
HIDDEN_OLDER = "The note it resembled is gone or not yours to review; keep both."


def _require_decision(decision: str, text: str | None) -> None:
    if decision not in PAIR_DECISIONS:
        raise ReviewError(f"Unknown decision {decision!r}; choose one of {', '.join(PAIR_DECISIONS)}.", status=422)
    if text is not None and decision != "same":
        raise ReviewError("An edited text goes with “same fact” only.", status=422)


def merge_preview(older: Note, newer: Note) -> str:
    """The text a "same fact" decision writes into ``older`` (what the card shows): its text
    with what ``newer`` adds, each sentence once, line breaks kept (engine/reading/merged_text.py).

    The reviewer approves the text they see: no model rewrites it afterwards.
    Raises AmemError when the merged text is not storable (too long).
    """
    cfg = get_config()
    return check_content(
        merged_text(older.content, newer.content), min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars
    ).text


def _merge_plan(winner: Note, loser: Note, text: str | None) -> tuple[Agent, merge.MergePlan]:
    """The engine's plan for a merge the reviewer decided: their edited ``text``, else the preview."""
    agent = Agent.objects.filter(pk=winner.owner, is_active=True).first()
    if agent is None:
        raise ReviewError(f"The owner agent {winner.owner!r} of the kept note is not active.")
    try:
        return agent, merge.plan_decided(agent, winner, loser, merge_preview(winner, loser) if text is None else text)
    except AmemError as exc:
        raise ReviewError(f"Cannot merge: {exc}", status=422) from exc


def _merge(
    winner: Note,
    loser: Note,
    user,
    *,
    op: str,
    group: str,
    loser_changes: dict,
    winner_changes: Callable[[Note], dict],
    pair: tuple[dict, dict],
    also: Callable[[], None],
    text: str | None = None,
    shown: Shown | None = None,
) -> None:
    """Merge ``loser`` into ``winner`` through the engine's one merge routine (links re-pointed,
    counters summed, one event group); call outside a transaction (the plan may ask the LLM).

    ``winner_changes`` (given the merged winner) are further fields set on the winner in the
    same transaction and event group, after the merge; ``also`` runs first in that transaction
    (it closes the pair, so a failed merge leaves it open). ``shown`` is checked before the
    plan; the merge itself refuses when either note moves between the plan and the write, so a
    stale card never writes.
    """
    if not winner.is_active or not loser.is_active:
        raise ReviewError("Both notes must be active to merge them.")
    _check_shown(shown, winner, loser, lock=False)
    agent, plan = _merge_plan(winner, loser, text)
    with transaction.atomic():
        also()
        merged = merge.merge_notes(
            plan,
            agent_id=agent.pk,
            actor=actor_for(user),
            tags={"op": op, "group": group},
            loser_changes=loser_changes,
            pair=pair,
        )
        if merged is None:
            raise StaleCard()
        changes = winner_changes(merged)
        if changes:
            _change(merged.pk, changes, actor=actor_for(user), op=op, group=group)


def _released(note: Note, pair: Pair) -> dict:
    """What deciding ``pair`` clears on ``note``: the quality scan's ``pending_conflict`` reason,
    unless another open conflict still holds the note (so a decided conflict leaves no note
    behind in the Low quality queue)."""
    others = Pair.objects.open().of_kind(Pair.CONFLICT).exclude(pk=pair.pk).touching([note.pk])
    reasons = list(note.low_quality_reasons or [])
    if PENDING_CONFLICT not in reasons or others.exists():
        return {}
    rest = [r for r in reasons if r != PENDING_CONFLICT]
    return {"low_quality_reasons": rest, "low_quality": bool(rest)}


def pair_sides(pair: Pair) -> tuple[Note, Note]:
    """(older, newer) of a pair by date (``newer`` was compared against ``older``; a dated write
    may have given it the earlier date)."""
    return older_newer(pair.older, pair.newer)


def decide(
    pair: Pair,
    decision: str,
    user,
    *,
    group: str | None = None,
    text: str | None = None,
    shown: Shown | None = None,
    older_hidden: bool = False,
) -> Decided:
    """One pair-flow decision on one card, recorded as the pair's resolution, and what it did.

    Same fact (the newer folded into the older, with the reviewer's edited ``text`` if any, else
    the prepared text; the older keeps its category), the newer replaces the older (the older
    retired), both true (keep both), not related (keep both, recorded as unrelated).
    ``older_hidden``: the reviewer may not see the older note (another agent's): only "both true"
    and "not related" apply, and only the newer note is written.
    """
    _require_decision(decision, text)
    if pair.status != Pair.OPEN:
        raise ReviewError("This pair was resolved already.")
    if older_hidden and decision in ("same", "replace"):
        raise ReviewError(HIDDEN_OLDER)
    group = group or _new_group()
    older, newer = (None, pair.newer) if older_hidden else pair_sides(pair)
    older_text = older.content if older is not None else None
    _resolve(pair, decision, user, group=group, text=text, shown=shown, older=older, newer=newer)
    if decision == "same" and older is not None:
        older.refresh_from_db()  # it holds the merged text now
    return Decided(decision, older, newer, older_text, group_event(group))


def _resolve(
    pair: Pair,
    decision: str,
    user,
    *,
    group: str,
    text: str | None,
    shown: Shown | None,
    older: Note | None,
    newer: Note,
) -> None:
    actor, op = actor_for(user), OPS[decision]
    before = pairs.state(pair)
    pair.status, pair.resolution, pair.resolved_by = Pair.RESOLVED, decision, actor
    pair.resolved_at = timezone.now()
    if older is not None:
        pair.superseded_id = {"replace": older.pk, "same": newer.pk}.get(decision)
    states = (before, pairs.state(pair))

    def save_pair() -> None:
        locked = Pair.objects.select_for_update().get(pk=pair.pk)
        if locked.status != Pair.OPEN:
            raise ReviewError("This pair was resolved already.")
        pair.save()

    if decision == "same":
        assert older is not None
        _merge(
            older,
            newer,
            user,
            op=op,
            group=group,
            loser_changes=_released(newer, pair),
            winner_changes=lambda merged: _released(merged, pair),
            pair=states,
            also=save_pair,
            text=text,
            shown=shown,
        )
        return
    with transaction.atomic():
        _check_shown(shown, older, newer)
        save_pair()
        if decision == "replace":
            assert older is not None
            if not older.is_active:
                raise ReviewError("The older note is retired already.")
            retire = {**_released(older, pair), "is_active": False}
            superseded = {"superseded_by": str(newer.pk)}
            _change(older.pk, retire, actor=actor, op=op, group=group, pair=states, extra=superseded)
            _change(newer.pk, _released(newer, pair), actor=actor, op=op, group=group)
            return
        unrelated = {"unrelated_to": str(pair.older_id)} if decision == "unrelated" else None
        _change(newer.pk, _released(newer, pair), actor=actor, op=op, group=group, pair=states, extra=unrelated)
        if older is not None:
            _change(older.pk, _released(older, pair), actor=actor, op=op, group=group)


# --- many cards at once ------------------------------------------------------------

QUALITY_VERBS = ("retire", "keep")


def bulk_quality(
    notes: Iterable[Note], verb: str, user, *, shown_for: Callable[[Note], Shown | None] = lambda _note: None
) -> BulkDone:
    """Retire, or keep (clear the low-quality flag), many notes as one undoable group: the notes
    done and the reasons for those skipped (retired meanwhile, flag cleared, changed since the
    preview showed it)."""
    if verb not in QUALITY_VERBS:
        raise ReviewError(f"Unknown action {verb!r}; choose one of {', '.join(QUALITY_VERBS)}.", status=422)
    group, done, skipped = _new_group(), [], []
    act = retire if verb == "retire" else keep_quality
    with transaction.atomic():
        for note in notes:
            try:
                act(note, user, group=group, shown=shown_for(note))
                done.append(note)
            except ReviewError as exc:
                skipped.append(str(exc))
    return BulkDone(group, done, skipped)


def bulk_pairs(
    pairs: Iterable[Pair],
    decision: str,
    user,
    *,
    shown_for: Callable[[Pair], Shown | None] = lambda _pair: None,
    older_hidden: Callable[[Pair], bool] = lambda _pair: False,
) -> BulkDone:
    """One pair-flow decision on many cards, as one undoable group (the review app shows what it
    will do to each card, and asks, before it runs): the pairs decided, the reasons for those
    skipped. Each "same fact" is its own transaction (its text is constructed first), the rest
    share one; all share the group, so one undo reverts them all."""
    if decision not in PAIR_DECISIONS:
        raise ReviewError(f"Unknown decision {decision!r}; choose one of {', '.join(PAIR_DECISIONS)}.", 422)
    group, done, skipped = _new_group(), [], []
    with transaction.atomic() if decision != "same" else nullcontext():
        for pair in pairs:
            try:
                decide(pair, decision, user, group=group, shown=shown_for(pair), older_hidden=older_hidden(pair))
                done.append(pair)
            except ReviewError as exc:
                skipped.append(str(exc))
    return BulkDone(group, done, skipped)


def group_event(group: str) -> NoteEvent | None:
    """The newest event of a group (an undo of any event of a group undoes the group)."""
    return NoteEvent.objects.filter(after__group=group).order_by("-id").first()


# --- undo ------------------------------------------------------------------------


def _fields(event: NoteEvent) -> list[str]:
    return [f for f in (event.before or {}) if f not in META]


def undo_blocker(event: NoteEvent) -> str | None:
    """Why this event cannot be undone from the review app, or None if it can (ignoring later changes)."""
    if event.action not in UNDOABLE_ACTIONS:
        return "This kind of change cannot be undone."
    fields = _fields(event)
    if not fields and "pair" not in (event.before or {}) and "group" not in (event.after or {}):
        return "This change has nothing to revert."
    if any(f not in REVERTIBLE for f in fields):
        return "This change touched fields the review app does not revert (access lists, counters); use the admin."
    if (event.after or {}).get("op") == "undo" or NoteEvent.objects.filter(after__undo_of=event.pk).exists():
        return "This change was undone already."
    return None


def undoable_ids(events: Iterable[NoteEvent]) -> set[int]:
    """Events of one note's history that offer an undo button."""
    events = list(events)
    undone = set(
        NoteEvent.objects.filter(note_id__in={e.note_id for e in events}, after__has_key="undo_of").values_list(
            "after__undo_of", flat=True
        )
    )
    ok = set()
    for event in events:
        if event.pk in undone or (event.after or {}).get("op") == "undo":
            continue
        fields = _fields(event)
        revertible = fields or "pair" in event.before or "group" in (event.after or {})
        if event.action in UNDOABLE_ACTIONS and revertible and all(f in REVERTIBLE for f in fields):
            ok.add(event.pk)
    return ok


def undo(event: NoteEvent, user, *, may_review) -> list[NoteEvent]:
    """Set the event's notes (its whole group) back to their before-state, with new events."""
    blocker = undo_blocker(event)
    if blocker:
        raise ReviewError(blocker)
    group = (event.after or {}).get("group")
    events = [event]
    if group:
        events = list(NoteEvent.objects.select_related("note").filter(after__group=group).order_by("-id"))
    actor, new_group = actor_for(user), _new_group()
    done: list[NoteEvent] = []
    with transaction.atomic():
        for ev in events:
            if not may_review(ev.note.agent_id):
                raise ReviewError("This change also touched a note you may not review.", status=403)
            blocker = undo_blocker(ev)
            if blocker:
                raise ReviewError(blocker)
            note = Note.objects.select_for_update().get(pk=ev.note_id)
            fields = _fields(ev)
            if any(f in ev.after and _value(note, f) != ev.after[f] for f in fields):
                raise ReviewError("The note changed after this event; undo the newer change first.")
            pair = None
            if "pair" in ev.before:
                pair_row = Pair.objects.select_for_update().get(pk=ev.before["pair"]["id"])
                if pairs.state(pair_row)["status"] != ev.after["pair"]["status"]:
                    raise ReviewError("The pair was decided again since; undo that first.")
                now_state = pairs.state(pair_row)
                pairs.set_state(pair_row, ev.before["pair"])
                pair = (now_state, pairs.state(pair_row))
            changes = {f: ev.before[f] for f in fields}
            done.append(_change(note.pk, changes, actor=actor, op="undo", group=new_group, pair=pair, undo_of=ev.pk))
    return done
