"""Erasure: a person asks to be forgotten, and the text leaves every place amem keeps it.

Retiring a note keeps its text for undo; erasing removes it for good. Three scopes: one
note, every note about a subject, a whole agent. For each erased note, in one transaction:

* the row becomes a tombstone: text, keywords, tags, context, topics, subjects, sources, metadata and
  embedding cleared, ``is_active=False``, ``erased_at`` set (never restored, never indexed);
* its history stays as content-free events (action, actor, time; ``before``/``after``
  emptied) plus one ``erase`` event saying how many were scrubbed;
* links to and from it are dropped, pairs with it (conflicts, waiting merges) deleted, merge
  pointers at it cleared;
* facts read only from erased notes are deleted; facts with other sources keep those;
* an episode whose turns were erased gets its summary regenerated from the turns left
  (the extractive summary, no model), or is erased with its summary when none are left;
  a reflection citing an erased note is erased too (its text was written from it);
* the admin's log entries for the note lose their text;
* one ``Erasure`` audit row records who, when, the scope and the counts, without content.

After commit the index points are deleted (tombstones are dirty, so the process that owns
the index deletes them if this one may not), the embedder's text cache is emptied, and on
SQLite the write-ahead log is checkpointed and truncated; ``secure_delete`` (set on every
connection in settings) has zeroed the freed bytes. Exports read the tombstones as empty.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from engine.errors import NotFound
from engine.index_sync import erased_traces, indexer
from memories.ids import check_subject
from memories.models import (
    SHARED_AGENT,
    Agent,
    CoreBlock,
    Episode,
    Erasure,
    Fact,
    Link,
    Note,
    NoteEvent,
    Pair,
)

log = logging.getLogger("engine.erasure")

REFLECTION_CITES = "reflection cites"  # engine/layers/reflection.py's link reason

# What a tombstone keeps: identity, ownership, times. Everything else is emptied.
TOMBSTONE: dict[str, object] = {
    "content": "",
    "content_hash": "",
    "write_key": None,
    "keywords": [],
    "tags": [],
    "context": "",
    "topics": [],
    "subjects": [],
    "sources": [],
    "metadata": {},
    "embedding": None,
    "embedding_model": "",
    "confidence": "",
    "session": "",
    "is_active": False,
    "low_quality_reasons": [],
    "index_dirty": True,
}


@dataclass
class Plan:
    """What one erasure touches, filled while it runs."""

    note_ids: set[uuid.UUID] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, n: int) -> None:
        if n:
            self.counts[key] = self.counts.get(key, 0) + n


def subject_digest(subject: str) -> str:
    return hashlib.sha256(subject.casefold().encode()).hexdigest()


# --- the three scopes --------------------------------------------------------------


def erase_note(note_id: object, agent: Agent | None, *, actor: str) -> Erasure:
    """Erase one note. ``agent`` set: only a note it owns (retired ones included); None: any (operator)."""
    try:
        pk = uuid.UUID(str(note_id))
    except ValueError:
        raise NotFound("no such note") from None
    qs = Note.objects.filter(pk=pk, erased_at__isnull=True)
    if agent is not None:
        qs = qs.filter(owner=agent.pk)
    note = qs.first()
    if note is None:
        raise NotFound("no such note")
    return _run(Erasure.NOTE, [note.pk], agent_id=note.owner, actor=actor)


def erase_subject(subject: str, agent: Agent | None, *, actor: str) -> Erasure:
    """Erase every note about ``subject`` (owned by ``agent``, or by anyone), its facts and core blocks."""
    check_subject(subject)  # the one rule for subjects (memories/ids.py)
    key = subject.casefold()
    notes = _live_notes(agent)
    ids = [pk for pk, subjects in notes.values_list("pk", "subjects").iterator() if _names(subjects, key)]
    facts = Fact.objects.filter(Q(subject_key=key) | Q(object_key=key))
    blocks = CoreBlock.objects.filter(subject__iexact=subject)
    if agent is not None:
        facts, blocks = facts.filter(agent_id=agent.pk), blocks.filter(agent=agent)

    def extra(plan: Plan) -> None:
        plan.add("facts", facts.delete()[1].get("memories.Fact", 0))
        plan.add("core_blocks", blocks.delete()[1].get("memories.CoreBlock", 0))

    return _run(
        Erasure.SUBJECT,
        ids,
        agent_id=agent.pk if agent else "",
        actor=actor,
        digest=subject_digest(subject),
        extra=extra,
    )


def erase_agent(agent: Agent, *, actor: str) -> Erasure:
    """Erase an agent's whole memory: notes, shared notes it owns, facts, core memory, episodes, keys."""
    ids = list(_live_notes(agent).values_list("pk", flat=True))

    def extra(plan: Plan) -> None:
        plan.add("facts", Fact.objects.filter(agent_id=agent.pk).delete()[1].get("memories.Fact", 0))
        plan.add("core_blocks", CoreBlock.objects.filter(agent=agent).delete()[1].get("memories.CoreBlock", 0))
        plan.add("keys", agent.keys.all().delete()[0])
        agent.reviewers.clear()
        Agent.objects.filter(pk=agent.pk).update(is_active=False, name="")

    return _run(Erasure.AGENT, ids, agent_id=agent.pk, actor=actor, extra=extra)


def _live_notes(agent: Agent | None):
    qs = Note.objects.filter(erased_at__isnull=True)
    if agent is not None:
        qs = qs.filter(Q(agent_id=agent.pk) | Q(agent_id=SHARED_AGENT, owner=agent.pk))
    return qs


def _names(subjects: list[str] | None, key: str) -> bool:
    return any(isinstance(s, str) and s.casefold() == key for s in subjects or [])


# --- the work ----------------------------------------------------------------------


def _run(scope: str, ids: Iterable[uuid.UUID], *, agent_id: str, actor: str, digest: str = "", extra=None) -> Erasure:
    plan = Plan(note_ids=set(ids))
    with transaction.atomic():
        if extra is not None:
            extra(plan)
        _derived(plan, actor)
        _erase_notes(plan, actor)
        erasure = Erasure.objects.create(
            scope=scope,
            agent_id=agent_id,
            subject_digest=digest,
            actor=actor,
            counts={"notes": len(plan.note_ids), **plan.counts},
            note_ids=sorted(str(i) for i in plan.note_ids),
        )
        done = list(plan.note_ids)
        transaction.on_commit(lambda: after_commit(done))
    log.warning("erasure %s: %s of %s by %s: %s", erasure.pk, scope, agent_id or "every agent", actor, erasure.counts)
    return erasure


def _derived(plan: Plan, actor: str) -> None:
    """Text written from the erased notes: reflections citing them, episodes summarising them."""
    ids = plan.note_ids
    reflections = set(
        Link.objects.filter(target_id__in=ids, reason=REFLECTION_CITES, source__erased_at__isnull=True)
        .exclude(source_id__in=ids)
        .values_list("source_id", flat=True)
    )
    plan.add("reflections_erased", len(reflections))
    ids |= reflections
    for episode in Episode.objects.select_related("note").filter(agent_id__in=_agents_of(ids)):
        erased_turns = [t for t in episode.turn_ids if _uuid(t) in ids]
        if episode.note_id in ids:
            plan.add("episodes_erased", 1)
            episode.delete()
        elif erased_turns:
            _regenerate(episode, erased_turns, plan, actor)


def _regenerate(episode: Episode, erased_turns: list[str], plan: Plan, actor: str) -> None:
    from engine.layers import episodes  # the summary rules live with the episodes

    kept = list(
        Note.objects.filter(pk__in=[t for t in episode.turn_ids if t not in erased_turns], erased_at__isnull=True)
        .exclude(pk__in=plan.note_ids)
        .order_by("created_at", "pk")
    )
    if not kept:
        plan.note_ids.add(episode.note_id)
        plan.add("episodes_erased", 1)
        episode.delete()
        return
    note = episode.note
    note.content = episodes.summarise(episode.session, kept)
    note.embedding, note.embedding_model = None, ""  # the indexer embeds the new text
    note.mark_dirty()
    note.save()
    scrubbed = NoteEvent.objects.filter(note=note).update(before={}, after={})
    NoteEvent.objects.create(
        note=note, action="erase", after={"regenerated": True, "turns_erased": len(erased_turns)}, actor=actor
    )
    episode.turn_ids = [str(t.pk) for t in kept]
    episode.save(update_fields=["turn_ids"])
    plan.add("episodes_regenerated", 1)
    plan.add("events_scrubbed", scrubbed)


def _erase_notes(plan: Plan, actor: str) -> None:
    ids, now = plan.note_ids, timezone.now()
    if not ids:
        return
    plan.add("links", Link.objects.filter(Q(source_id__in=ids) | Q(target_id__in=ids)).delete()[0])
    plan.add("pairs", Pair.objects.touching(ids).delete()[0])
    Note.objects.filter(merged_into_id__in=ids).update(merged_into=None)
    _trim_facts(plan)
    per_note = dict(
        NoteEvent.objects.filter(note_id__in=ids).values("note_id").annotate(n=Count("id")).values_list("note_id", "n")
    )
    plan.add("events_scrubbed", NoteEvent.objects.filter(note_id__in=ids).update(before={}, after={}))
    NoteEvent.objects.bulk_create(
        [NoteEvent(note_id=i, action="erase", after={"events": per_note.get(i, 0)}, actor=actor) for i in ids],
        batch_size=1000,
    )
    Note.objects.filter(pk__in=list(ids)).update(**TOMBSTONE, erased_at=now, revision=F("revision") + 1)
    _scrub_admin_log(ids)


def _trim_facts(plan: Plan) -> None:
    """Facts read from erased notes: drop those sources; a fact left without any is deleted."""
    erased = {str(i) for i in plan.note_ids}
    gone, trimmed = [], []
    for fact in Fact.objects.filter(agent_id__in=_agents_of(plan.note_ids)).exclude(sources=[]).iterator():
        kept = [s for s in fact.sources or [] if s not in erased]
        if len(kept) == len(fact.sources or []):
            continue
        if kept:
            fact.sources = kept
            trimmed.append(fact)
        else:
            gone.append(fact.pk)
    Fact.objects.bulk_update(trimmed, ["sources"], batch_size=500)
    plan.add("facts", Fact.objects.filter(pk__in=gone).delete()[1].get("memories.Fact", 0))
    plan.add("facts_trimmed", len(trimmed))


def _scrub_admin_log(ids: set[uuid.UUID]) -> None:
    """The admin's history names an object by its text (``str(note)``): keep the entry, drop the text."""
    from django.contrib.admin.models import LogEntry
    from django.contrib.contenttypes.models import ContentType

    note_type = ContentType.objects.get_for_model(Note)
    LogEntry.objects.filter(content_type=note_type, object_id__in=[str(i) for i in ids]).update(
        object_repr="(erased)", change_message=""
    )


def _agents_of(ids: set[uuid.UUID]) -> set[str]:
    rows = Note.objects.filter(pk__in=list(ids)).values_list("agent_id", "owner")
    return {a for row in rows for a in row}


def _uuid(value: object) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


# --- after commit: index, caches, files --------------------------------------------


def after_commit(note_ids: list[uuid.UUID]) -> None:
    """Delete the index points now if this process owns the index; clear caches; flush SQLite's log."""
    indexer.sync_notes(note_ids)
    erased_traces.forget_cached_text()
    erased_traces.checkpoint_sqlite()
    erased_traces.compact_postgres()
