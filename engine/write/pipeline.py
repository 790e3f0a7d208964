"""Write paths (docs/architecture.md §3).

``add_memory``: quality gate → L1 → embed → L2 fold / L2.5 flag → construct →
link → evolve → save. The steps live in their own modules (dedup, fold,
construct, linking, evolution); this module orders them. Every model call
happens before the write's transaction, so no database lock is held while a
model thinks; the index follows after commit (the outbox, engine/index_sync/indexer.py).

``add_episodic``: quality gate → embed raw content → insert. No LLM, no dedup,
for hot loops; ``add_episodic_batch`` embeds many at once.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from engine import locking, metrics, pacing, runtime
from engine.annotations import facts, importance, pairs
from engine.config import EngineConfig, get_config
from engine.errors import InvalidInput, NotFound
from engine.index.embeddings import to_bytes
from engine.index_sync import outbox
from engine.judgments import triage
from engine.text import (
    CheckedText,
    check_content,
    check_context,
    check_storable,
    content_hash,
    embedding_text,
    storable,
)
from engine.write import dedup, evolution, fold, linking
from engine.write.construct import apply_fields, check_note_type, construct, recipe_vectors
from memories import access, ids
from memories.models import Agent, Note, NoteEvent, Pair

CREATED, DUPLICATE, FOLDED, FLAGGED, CONFLICT = "created", "duplicate", "folded", "flagged", "conflict"


@dataclass
class EpisodicItem:
    text: str
    subjects: Sequence[str] = ()
    sources: Sequence[str] = ()
    occurred_at: dt.datetime | None = None
    scope: str = "private"
    # What the event answers or where it happened (e.g. the previous turn of a conversation):
    # stored as the note's context, so it is embedded and indexed with the text.
    context: str = ""
    # The conversation session of a chat turn ("" otherwise); episodes close sessions.
    session: str = ""
    # The caller's own key/values (clean_metadata), kept on the note untouched.
    metadata: Mapping[str, object] | None = None


def resolve_agent(agent: Agent | str) -> Agent:
    if isinstance(agent, Agent):
        if not agent.is_active:
            raise NotFound(f"agent {agent.pk!r} is not active")
        return agent
    found = Agent.objects.filter(pk=ids.check_agent_id(agent), is_active=True).first()
    if found is None:
        raise NotFound(f"no active agent {agent!r}")
    return found


def clean_labels(values: object, name: str, *, limit: int = 50) -> list[str]:
    """A list of short, non-empty strings (subjects, sources), de-duplicated in order."""
    if values is None:
        return []
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInput(f"{name} must be a list of strings")
    cleaned: list[str] = []
    for value in values:
        if not isinstance(value, str) or not value.strip() or len(value) > 200:
            raise InvalidInput(f"{name} must hold non-empty strings of at most 200 characters")
        if not storable(value):
            raise InvalidInput(f"{name} must not contain control characters or invalid UTF-8")
        if name == "subjects":
            ids.check_subject(value.strip())  # the one rule for subjects (memories/ids.py)
        if value.strip() not in cleaned:
            cleaned.append(value.strip())
    if len(cleaned) > limit:
        raise InvalidInput(f"{name} may hold at most {limit} entries")
    return cleaned


METADATA_MAX_BYTES = 4096
# Notes per step when a batch is stored (a long conversation gives way between steps: engine/pacing.py).
STORE_CHUNK = 100


def clean_metadata(values: object) -> dict:
    """The caller's metadata: a JSON object of at most 4 KB whose texts the database can store."""
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise InvalidInput("metadata must be a JSON object")
    try:
        size = len(json.dumps(values, ensure_ascii=False).encode())
    except (TypeError, ValueError):
        raise InvalidInput("metadata must hold only JSON values") from None
    if size > METADATA_MAX_BYTES:
        raise InvalidInput(f"metadata is {size} bytes as JSON; the limit is {METADATA_MAX_BYTES}")
    _check_metadata_texts(values)
    return dict(values)


def _check_metadata_texts(value: object) -> None:
    if isinstance(value, str):
        check_storable(value, "metadata")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            check_storable(key, "metadata")
            _check_metadata_texts(item)
    elif isinstance(value, list):
        for item in value:
            _check_metadata_texts(item)


def check_occurred_at(occurred_at: object) -> dt.datetime | None:
    if occurred_at is None:
        return None
    if not isinstance(occurred_at, dt.datetime) or timezone.is_naive(occurred_at):
        raise InvalidInput("occurred_at must be a datetime with a time zone")
    try:
        occurred_at.astimezone(dt.UTC)  # 9999-12-31T23:00-05:00 has no UTC form: the save would crash
    except OverflowError:
        raise InvalidInput("occurred_at is out of range") from None
    return occurred_at


def _prepare(agent: Agent, item: EpisodicItem) -> Note:
    cfg = get_config()
    checked = check_content(item.text, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars)
    check_occurred_at(item.occurred_at)
    return Note(
        content=checked.text,
        context=check_context(item.context, max_chars=cfg.max_note_chars),
        content_hash=content_hash(checked.text),
        ephemeral=checked.ephemeral,
        subjects=clean_labels(item.subjects, "subjects"),
        sources=clean_labels(item.sources, "sources", limit=1000),
        created_at=item.occurred_at or timezone.now(),
        session=_session(item.session),
        metadata=clean_metadata(item.metadata),
        index_dirty=True,
        revision=1,
        **access.fields_for_new_note(agent, item.scope),
    )


def _session(label: str) -> str:
    return ids.check_session(label) if label else ""


@metrics.timed(metrics.WRITE_SECONDS, path="episodic")
def add_episodic_batch(agent: Agent | str, items: Sequence[EpisodicItem], *, actor: str | None = None) -> list[Note]:
    """Validate all, embed all, insert all in one transaction: all or nothing."""
    agent = resolve_agent(agent)
    notes = embed_episodic(agent, items)
    _store_episodic_batch(agent, notes, actor)
    return notes


@locking.retry_on_conflict
def _store_episodic_batch(agent: Agent, notes: list[Note], actor: str | None) -> None:
    with transaction.atomic():
        store_episodic(agent, notes, actor=actor, read_facts=True)


def embed_episodic(agent: Agent, items: Sequence[EpisodicItem]) -> list[Note]:
    """Validated, embedded, unsaved notes for ``items``; raises before anything is written."""
    notes = prepare_episodic(agent, items)
    embed_notes(notes)
    return notes


def prepare_episodic(agent: Agent, items: Sequence[EpisodicItem]) -> list[Note]:
    """Validated, unsaved notes for ``items``, not embedded yet; raises before anything is written."""
    return [_prepare(agent, item) for item in items]


def embed_notes(notes: Sequence[Note]) -> None:
    """Embed notes from ``prepare_episodic`` (content + context) and rate their importance."""
    if not notes:
        return
    emb = runtime.embedder()
    vectors = emb.encode([embedding_text(n.content, context=n.context) for n in notes])
    for note, vector in zip(notes, vectors, strict=True):
        note.embedding, note.embedding_model = to_bytes(vector), emb.model_name
        # No model on this path: the anchor classifier reuses the vector just computed.
        note.importance = importance.rate(note.content, vector)


def store_episodic(
    agent: Agent, notes: list[Note], *, actor: str | None = None, path: str = "episodic", read_facts: bool = False
) -> None:
    """Insert notes from ``embed_episodic`` inside the caller's transaction; indexed after commit.

    ``read_facts``: what the notes say themselves (an event, a turn) also yields facts, by the
    offline patterns: no model on this path. A summary or a reflection restates or infers, so
    its callers leave it off.
    """
    if not notes:
        return
    # In chunks: a long conversation gives way to other requests between them (engine/pacing.py).
    for chunk in pacing.chunks(notes, STORE_CHUNK):
        Note.objects.bulk_create(chunk)
    if read_facts:
        found = [
            (note, triples)
            for chunk in pacing.chunks(notes, STORE_CHUNK)
            for note in chunk
            if (triples := facts.extract_patterns(note.content, note.subjects))
        ]
        facts.record_from_notes(agent, found, "offline")
    for chunk in pacing.chunks(notes, STORE_CHUNK):
        NoteEvent.objects.bulk_create(
            NoteEvent(note=n, action="create", after={"content": n.content, "path": path}, actor=actor or agent.pk)
            for n in chunk
        )
    _touch(agent)
    outbox.sync_after_commit([n.pk for n in notes])


def add_episodic(
    text: str,
    agent: Agent | str,
    *,
    scope: str = "private",
    subjects: Sequence[str] = (),
    sources: Sequence[str] = (),
    occurred_at: dt.datetime | None = None,
    context: str = "",
    actor: str | None = None,
) -> Note:
    """One event, no LLM and no dedup; returns the stored note."""
    item = EpisodicItem(text, subjects, sources, occurred_at, scope, context)
    return add_episodic_batch(agent, [item], actor=actor)[0]


# --- add_memory ---------------------------------------------------------------------


@dataclass(frozen=True)
class WriteResult:
    """What a write did: the note that now holds the text, and how it got there."""

    note: Note
    outcome: str  # created | duplicate | folded | flagged | conflict
    links: tuple[str, ...] = ()
    evolved: tuple[str, ...] = ()
    similar_to: str | None = None  # the note it duplicated, folded into, resembled or contradicts
    similarity: float | None = None


@dataclass(frozen=True)
class _Input:
    agent: Agent
    checked: CheckedText
    scope: str
    subjects: list[str]
    sources: list[str]
    note_type: str | None
    occurred_at: dt.datetime | None
    actor: str
    session: str = ""
    metadata: dict | None = None


@metrics.timed(metrics.WRITE_SECONDS, path="memory")
def add_memory(
    text: str | bytes,
    agent: Agent | str,
    *,
    scope: str = "private",
    subjects: Sequence[str] = (),
    sources: Sequence[str] = (),
    note_type: str | None = None,
    occurred_at: dt.datetime | None = None,
    actor: str | None = None,
    session: str = "",
    metadata: Mapping[str, object] | None = None,
) -> WriteResult:
    """The full write: everything is validated before anything is read from the index or written.

    ``session`` and ``metadata`` are kept on a new note; a duplicate or a fold leaves the note it
    lands in as it was (its session, its metadata).
    """
    agent = resolve_agent(agent)
    cfg = get_config()
    given = _Input(
        agent=agent,
        checked=check_content(text, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars),
        scope=scope,
        subjects=clean_labels(subjects, "subjects"),
        sources=clean_labels(sources, "sources", limit=1000),
        note_type=check_note_type(note_type),
        occurred_at=check_occurred_at(occurred_at),
        actor=actor or agent.pk,
        session=_session(session),
        metadata=clean_metadata(metadata),
    )
    access.fields_for_new_note(agent, scope)  # an impossible scope fails here, before any work

    existing = dedup.find_exact(agent, given.checked.text, given.subjects)
    if existing is not None:
        return WriteResult(existing, DUPLICATE, similar_to=str(existing.pk), similarity=1.0)

    raw = runtime.embedder().encode_one(given.checked.text)
    decision = dedup.decide(dedup.resemblances(agent, raw, given.subjects), cfg)
    if decision.target is not None:
        # A concurrent write of the same text may have committed since L1 looked, and L2 then
        # finds it at similarity 1.0: looked up again, it is a duplicate, not a fold into itself.
        existing = dedup.find_exact(agent, given.checked.text, given.subjects)
        if existing is not None:
            return WriteResult(existing, DUPLICATE, similar_to=str(existing.pk), similarity=1.0)
    triaged = None
    if decision.action == dedup.FOLD and decision.target is not None:
        # Near-identical wording can say opposite things ("Mia is 7" / "Mia just turned 9"):
        # the pair is triaged first (engine/judgments/triage.py); a likely change is never folded.
        triaged = triage.assess(
            decision.target, given.checked.text, decision.similarity or 0.0, subjects=given.subjects
        )
    if decision.action == dedup.FOLD and decision.target is not None and _may_fold(triaged):
        folded = _fold(given, decision, cfg)
        if folded is not None:
            return folded
        # The model saw two facts, or the note moved under us: keep both, flagged for the merge job.
        decision = dedup.Decision(dedup.FLAG, decision.target, decision.similarity)
    return _insert(given, decision, cfg)


def _may_fold(triaged: triage.Triage | None) -> bool:
    """Offline only a pair that adds nothing folds; with a model, anything but a likely change
    goes to the model's merge decision (which may still keep both)."""
    if triaged is None or triaged.action == triage.CONFLICT:
        return False
    return triaged.action == triage.FOLD or not runtime.llm().is_offline("should_merge")


# A fold whose target changed while it was planned plans again on the new text this often.
FOLD_ATTEMPTS = 3


def _fold(given: _Input, decision: dedup.Decision, cfg: EngineConfig) -> WriteResult | None:
    """Fold into the target; None when the texts should stay two notes (the caller flags them).

    Concurrent writes of one text near an existing note all aim at that note. The first
    fold changes it, so the others find it moved: they plan again against what it says
    now (which already holds their text, so the fold adds only their sources), exactly
    what they would have done one after another, instead of storing the text a second time.
    """
    target = decision.target
    for _ in range(FOLD_ATTEMPTS):
        assert target is not None
        fold_plan = fold.plan_fold(given.agent, target, given.checked.text, cfg)
        if fold_plan is None:
            return None
        with transaction.atomic():
            note = fold.apply_fold(fold_plan, given.sources, given.agent.pk, given.actor)
            if note is not None:
                _touch(given.agent)
                outbox.sync_after_commit([note.pk])
        if note is not None:
            return WriteResult(note, FOLDED, similar_to=str(note.pk), similarity=decision.similarity)
        target = Note.objects.active().filter(pk=target.pk).first()
        if target is None or not access.can_write(given.agent.pk, target):
            return None
        existing = dedup.find_exact(given.agent, given.checked.text, given.subjects)
        if existing is not None:
            return WriteResult(existing, DUPLICATE, similar_to=str(existing.pk), similarity=1.0)
    return None


def _insert(given: _Input, decision: dedup.Decision, cfg: EngineConfig) -> WriteResult:
    """Store ``given`` as a new note.

    Offline the write opens nothing for a person: the nightly sweep ranks every new note's
    pairs and opens the likeliest within the reviewer's daily budget
    (engine/maintenance/pair_sweep.py). Pairs opened at write time, first come first served,
    held 76 % of a 2,200-note store of real chat and 15.6 false conflicts per 200 notes
    (docs/benchmarks.md, "Curation on data nobody tuned on"). With a model, a similar note
    waits for the pending-merge job's judge, and a single-valued fact the model's facts close
    opens a conflict at once.
    """
    agent, text = given.agent, given.checked.text
    fields = construct(text, agent.pk, note_type=given.note_type)
    vector = recipe_vectors([(text, fields)])[0]
    found = linking.candidates(agent, vector, cfg)
    ask = None
    similar = decision.action == dedup.FLAG and decision.target is not None
    if similar and not runtime.llm().is_offline("evolution_judge"):
        ask = triage.Triage(triage.ASK, decision.target, None, decision.similarity)
    link_plan = linking.plan(agent, text, found)
    evolve_plan = None
    if link_plan.targets and evolution.due(evolution.count_link_write(agent), cfg.evolve_every):
        evolve_plan = evolution.plan(agent, text, link_plan.targets, cfg)

    note = Note(
        content=text,
        content_hash=content_hash(text),
        ephemeral=given.checked.ephemeral,
        subjects=given.subjects,
        sources=given.sources,
        session=given.session,
        metadata=given.metadata or {},
        created_at=given.occurred_at or timezone.now(),
        embedding=to_bytes(vector),
        embedding_model=runtime.embedder().model_name,
        index_dirty=True,
        revision=1,
        **access.fields_for_new_note(agent, given.scope),
    )
    apply_fields(note, fields)
    note.importance = fields.importance or importance.rate(text, vector)
    # Triples ride in the construct call; offline (or when the model gave none) the narrow patterns.
    triples, origin = (
        (fields.facts, "llm") if fields.facts else (facts.extract_patterns(text, given.subjects), "offline")
    )
    note.write_key = Note.exact_key(note.content_hash, note.subjects)
    try:
        return _store_insert(given, decision, note, ask, link_plan, evolve_plan, triples, origin)
    except IntegrityError:
        # A concurrent write of the same text committed first (note_unique_active_write_key):
        # the same answer it would have got a moment later from L1.
        winner = Note.objects.active().filter(agent_id=note.agent_id, write_key=note.write_key).first()
        if winner is None:
            raise
        return WriteResult(winner, DUPLICATE, similar_to=str(winner.pk), similarity=1.0)


@locking.retry_on_conflict
def _store_insert(
    given: _Input,
    decision: dedup.Decision,
    note: Note,
    ask: triage.Triage | None,
    link_plan,
    evolve_plan,
    triples,
    origin: str,
) -> WriteResult:
    agent, text = given.agent, given.checked.text
    with transaction.atomic():
        note.save(force_insert=True)
        made = facts.record_from_note(note, agent, triples, origin)
        # The facts layer is surer than a question: a closed fact opens a conflict, not a merge.
        conflict = _closed_by_facts(note, agent, made) if origin == "llm" else None
        flagged = ask if conflict is None else None
        linked = linking.create(note, link_plan, agent.pk, given.actor)
        NoteEvent.objects.create(
            note=note,
            action="create",
            after={
                "content": text,
                "path": "memory",
                "links": linked,
                "merge_candidate": str(flagged.other.pk) if flagged and flagged.other else None,
                "merge_similarity": flagged.similarity if flagged else None,
            },
            actor=given.actor,
        )
        evolved = evolution.apply(evolve_plan, note, agent.pk, given.actor) if evolve_plan else []
        if flagged is not None and flagged.other is not None:
            pairs.open_pair(
                flagged.other,
                note,
                kind=Pair.MERGE,
                actor=given.actor,
                similarity=flagged.similarity,
                opened_by="write",
            )
        if conflict is not None:
            pairs.open_pair(
                conflict[0],
                note,
                kind=Pair.CONFLICT,
                actor=given.actor,
                reason=f"[write] {conflict[1]}",
                guess="change",
            )
            note.refresh_from_db(fields=["evolution_type"])
        _touch(agent)
        outbox.sync_after_commit([note.pk, *evolved])
    if conflict is not None:
        return WriteResult(
            note,
            CONFLICT,
            links=tuple(linked),
            evolved=tuple(evolved),
            similar_to=str(conflict[0].pk),
            similarity=decision.similarity,
        )
    return WriteResult(
        note,
        FLAGGED if flagged else CREATED,
        links=tuple(linked),
        evolved=tuple(evolved),
        similar_to=str(flagged.other.pk) if flagged and flagged.other else None,
        similarity=flagged.similarity if flagged else None,
    )


def _closed_by_facts(note: Note, agent: Agent, made: Sequence) -> tuple[Note, str] | None:
    """A note whose fact this write's facts closed (or that closes this one): a contradiction to show.

    The facts layer closes a single-valued fact (lives_in, works_at, is_age …) when a newer one
    names another object, wherever the older note sits in the vector space. Only for the model's
    facts: the offline patterns read "I used to live in Leeds" as where someone lives.
    """
    for mine, theirs in facts.replaced_by(made):
        for source in Note.objects.filter(
            pk__in=theirs.sources, is_active=True, note_type__in=(Note.MEMORY, Note.KNOWLEDGE)
        ).exclude(pk=note.pk):
            if access.can_write(agent.pk, source):
                return source, f"{theirs.subject} {theirs.relation.replace('_', ' ')}: {theirs.object} → {mine.object}"
    return None


def _touch(agent: Agent) -> None:
    Agent.objects.filter(pk=agent.pk).update(last_write_at=timezone.now())
