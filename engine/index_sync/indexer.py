"""The outbox index sync (docs/architecture.md §2): the database is the truth, Qdrant follows it.

A write commits the note with ``index_dirty=True`` and a bumped ``revision``
in one transaction. ``sync_dirty`` applies dirty notes to the index and clears
the mark only where the revision is still the one it indexed, so a write that
lands during a sync is picked up by the next one. A crash or an index failure
between commit and sync leaves the note dirty, never lost.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from engine import locking, pacing, runtime
from engine.config import get_config
from engine.errors import AmemError, IndexLocked
from engine.index.embeddings import from_bytes, to_bytes
from engine.index.store import ACTIVE, RETIRED, IndexPoint, VectorStore, bm25_document_vector
from engine.index.tokenize import tokenize
from engine.index_sync import erased_traces, lexical_length
from engine.text import embedding_text
from memories.access import collection_for_note
from memories.models import Agent, Note

log = logging.getLogger("engine.index_sync.indexer")

BATCH = 256
# A writer's own notes per step: a long conversation gives way between steps (engine/pacing.py).
OWN_CHUNK = 100


@dataclass
class SyncResult:
    indexed: int = 0
    failed: int = 0
    error: str = ""


def payload_for(note: Note) -> dict:
    """What index queries filter on (docs/architecture.md §2). Topics are lower-cased for case-insensitive filters."""
    return {
        "agent_id": note.agent_id,
        "owner": note.owner,
        "readers": list(note.readers or []),
        "writers": list(note.writers or []),
        "subjects": list(note.subjects or []),
        "status": ACTIVE if note.is_active else RETIRED,
        "note_type": note.note_type,
        "topics": [t.casefold() for t in note.topics or []],
        "category": note.category,
        "created_at": note.created_at.timestamp(),
    }


def ensure_embedding(note: Note) -> np.ndarray:
    """The note's stored vector, computing (and storing) it when missing or from another model."""
    model = runtime.embedder().model_name
    vector = from_bytes(note.embedding)
    if vector is None or note.embedding_model != model:
        vector = runtime.embedder().encode_one(embedding_text(note.content, note.keywords, note.tags, note.context))
        note.embedding, note.embedding_model = to_bytes(vector), model
        Note.objects.filter(pk=note.pk).update(embedding=note.embedding, embedding_model=model)
    return vector


def lexical_terms(note: Note) -> tuple[list[str], list[str]]:
    """The note's BM25 terms and its context's (the one recipe, engine/text.py)."""
    return tokenize(embedding_text(note.content, note.keywords, note.tags)), tokenize(
        note.context
    ) if note.context else []


def point_for(note: Note, avg_len: float | None = None, terms: tuple[list[str], list[str]] | None = None) -> IndexPoint:
    """The note's index point; BM25 weighed against ``avg_len`` (its agent's average, by default the
    configured one). ``terms``: its ``lexical_terms`` when the caller has them already."""
    cfg = get_config()
    tokens, context = terms or lexical_terms(note)
    sparse = bm25_document_vector(
        tokens, k1=cfg.bm25_k1, b=cfg.bm25_b, avg_len=avg_len or cfg.bm25_avg_len, context=context
    )
    return IndexPoint(str(note.pk), ensure_embedding(note), sparse, payload_for(note))


def _fill_embeddings(notes: list[Note]) -> None:
    """Embed in one batch the notes that have no vector from the current model."""
    model = runtime.embedder().model_name
    # In id order: bulk_update locks the rows one by one, like every multi-row writer (engine/locking.py).
    missing = sorted((n for n in notes if n.embedding is None or n.embedding_model != model), key=lambda n: n.pk)
    if not missing:
        return
    texts = [embedding_text(n.content, n.keywords, n.tags, n.context) for n in missing]
    vectors = runtime.embedder().encode(texts)
    for note, vector in zip(missing, vectors, strict=True):
        note.embedding, note.embedding_model = to_bytes(vector), model
    Note.objects.bulk_update(missing, ["embedding", "embedding_model"], batch_size=500)


def apply(notes: list[Note], store: VectorStore | None = None) -> None:
    """Write these notes to the index (raises on index failure) and clear their dirty marks."""
    if not notes:
        return
    store = store or runtime.store()
    erased = [n for n in notes if n.erased_at is not None]
    live = [n for n in notes if n.erased_at is None]
    _fill_embeddings(live)
    agents = {a.pk: a for a in Agent.objects.filter(pk__in={n.agent_id for n in notes})}
    terms = {note: lexical_terms(note) for note in live}
    averages = lexical_length.record({note: len(words) for note, (words, _) in terms.items()}, erased)
    by_collection: dict[str, list[IndexPoint]] = defaultdict(list)
    for note in live:
        by_collection[collection_for_note(note, agents)].append(point_for(note, averages[note.agent_id], terms[note]))
    for collection, points in by_collection.items():
        store.upsert(collection, points)
    if erased:
        # An erased note's point leaves the index, and its segments are rewritten (engine/erasure.py).
        gone: dict[str, list[str]] = defaultdict(list)
        for note in erased:
            gone[collection_for_note(note, agents)].append(str(note.pk))
        for collection, ids in gone.items():
            store.erase(collection, ids)
        erased_traces.forget_cached_text()
        erased_traces.checkpoint_sqlite()
    clear_marks(notes)


@locking.retry_on_conflict
def clear_marks(notes: list[Note]) -> None:
    """Mark these notes indexed, where nobody changed them since they were read; mark the others
    dirty again.

    Only rows free right now, in id order (engine/locking.py): a note a write holds is
    changing anyway and stays dirty for the next round, and the drainer and a request
    that clear overlapping notes never wait on each other in opposite orders.

    A note changed since it was read may already have been indexed, and cleared, at its new
    revision (the writing request indexes its own notes): this round's upsert has just written
    the older text over it, so the note goes back to the outbox and the next round writes the
    current one.
    """
    indexed = {note.pk: note.revision for note in notes}
    now = timezone.now()
    with transaction.atomic():
        free = locking.free_rows(Note.objects.filter(pk__in=list(indexed))).values_list("pk", "revision")
        unchanged: list[Any] = []
        moved_on: list[Any] = []
        for pk, revision in free:
            (unchanged if indexed[pk] == revision else moved_on).append(pk)
        if unchanged:
            Note.objects.filter(pk__in=unchanged).update(index_dirty=False, indexed_at=now)
        if moved_on:
            Note.objects.filter(pk__in=moved_on, index_dirty=False).update(index_dirty=True)


def sync_notes(note_ids: Iterable) -> SyncResult:
    """Index these notes now if they are dirty; failures leave them dirty for the next sync."""
    if not runtime.index_available():
        return SyncResult()
    notes = list(Note.objects.filter(pk__in=list(note_ids), index_dirty=True))
    done = 0
    try:
        # In chunks: a long conversation's own notes give way to other requests between them.
        for chunk in pacing.chunks(notes, OWN_CHUNK):
            apply(chunk)
            done += len(chunk)
    except IndexLocked:
        # The documented path: a command while the server runs. The server's drainer indexes them.
        log.info("%d note(s) left for the process that owns the index (the server)", len(notes) - done)
        return SyncResult(indexed=done)
    except AmemError as exc:
        log.warning("index sync failed, %d note(s) stay dirty: %s", len(notes) - done, exc)
        return SyncResult(indexed=done, failed=len(notes) - done, error=str(exc))
    return SyncResult(indexed=done)


def sync_dirty(
    *,
    among: QuerySet[Note] | None = None,
    limit: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> SyncResult:
    """Apply every dirty note (``among`` a subset, if given), oldest change first, in batches."""
    result = SyncResult()
    if not runtime.index_available():
        return result
    # A cursor past the last batch, not a list of the notes seen: a note left dirty (its row was
    # busy) waits for the next sync either way, and the query stays one walk of the dirty-notes
    # index from the cursor. Excluding a growing list of seen ids made each batch dearer: at
    # 90,000 seen a batch's query took 1.2 s, most of a rebuild's time (docs/benchmarks.md).
    after: tuple | None = None
    while limit is None or result.indexed < limit:
        pending = (among if among is not None else Note.objects.all()).filter(index_dirty=True)
        if after is not None:
            pending = pending.filter(Q(updated_at__gt=after[0]) | Q(pk__gt=after[1]), updated_at__gte=after[0])
        size = BATCH if limit is None else min(BATCH, limit - result.indexed)
        notes = list(pending.order_by("updated_at", "pk")[:size])
        if not notes:
            break
        after = (notes[-1].updated_at, notes[-1].pk)
        try:
            apply(notes)
        except AmemError as exc:
            log.warning("index sync failed, %d note(s) stay dirty: %s", len(notes), exc)
            result.failed += len(notes)
            result.error = str(exc)
            break
        result.indexed += len(notes)
        if progress:
            progress(len(notes))
    return result
