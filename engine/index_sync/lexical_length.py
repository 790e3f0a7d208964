"""BM25's average note length, per agent, kept current as notes are indexed (docs/retrieval.md, "BM25 length").

BM25 divides a note's term weights by ``k1·(1 − b + b·len/avg_len)``, ``avg_len`` being the
average length of the notes it ranks. A fixed 24, the constant before, fits LoCoMo's short turns;
an agent whose turns average 140 terms saw every answer weighed as if six times too long and a
30-term session opener as if normal, so stock phrases outranked rare content words. The average
is now the agent's own (each agent ranks its own notes), counted as notes are indexed.

The index's vectors keep the average they were written with. When the agent's average moves more
than ``DRIFT`` from that one, its other notes are marked for the outbox to re-write (from their
stored dense vectors: no embedding, only tokenizing), so a store that grows is re-written a few
times in all, mostly while it is small. An agent whose vectors were written before this was kept
(with the configured constant, and context terms counted in the length) is re-written once, on its
first write after the upgrade.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence

from django.db import transaction
from django.db.models import Count, F, Sum

from engine.config import get_config
from memories.models import LexicalStats, Note

# How far an agent's average may move from the one its vectors were written with before they are
# all re-written: BM25's length factor is linear in it, and a quarter is a quarter of a note's
# weight at b = 0.75.
DRIFT = 0.25


def record(lengths: Mapping[Note, int], erased: Sequence[Note] = ()) -> dict[str, float]:
    """Count these notes' lengths (and the erased ones out); the average each agent's vectors use now.

    A note's length is written only where it still holds the value read with it, so two
    indexers that race over one note count it once. One UPDATE per (agent, old length, new
    length), not one per note: a 1,000-turn conversation made 1,000 statements here.
    """
    swaps: dict[tuple[str, int | None, int | None], list[uuid.UUID]] = defaultdict(list)  # note pks
    for note, length in lengths.items():
        if note.lexical_length != length:
            swaps[(note.agent_id, note.lexical_length, length)].append(note.pk)
    for note in erased:
        if note.lexical_length is not None:
            swaps[(note.agent_id, note.lexical_length, None)].append(note.pk)
    deltas: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # agent → [notes, terms]
    with transaction.atomic():
        for (agent_id, old, new), pks in swaps.items():
            swapped = Note.objects.filter(pk__in=pks, lexical_length=old).update(lexical_length=new)
            deltas[agent_id][0] += swapped * ((old is None) - (new is None))
            deltas[agent_id][1] += swapped * ((new or 0) - (old or 0))
        for note, length in lengths.items():
            note.lexical_length = length
        for note in erased:
            note.lexical_length = None
        agents = {n.agent_id for n in lengths} | set(deltas)
        return {agent_id: _average(agent_id, *deltas[agent_id], batch=lengths) for agent_id in agents}


def _average(agent_id: str, notes: int, terms: int, *, batch: Mapping[Note, int]) -> float:
    stats, _ = LexicalStats.objects.get_or_create(agent_id=agent_id)
    if notes or terms:
        LexicalStats.objects.filter(pk=agent_id).update(notes=F("notes") + notes, terms=F("terms") + terms)
        stats.refresh_from_db()
    written = stats.indexed_average or get_config().bm25_avg_len
    now = stats.average
    if now is None or (stats.indexed_average is not None and abs(now / written - 1) <= DRIFT):
        return written
    # Rare (the average moved by a quarter): recount exactly, so counts that went astray heal here.
    counted = Note.objects.filter(agent_id=agent_id, lexical_length__isnull=False).aggregate(
        notes=Count("pk"), terms=Sum("lexical_length")
    )
    stats.notes, stats.terms = counted["notes"], counted["terms"] or 0
    stats.indexed_average = stats.average or written
    stats.save(update_fields=["notes", "terms", "indexed_average"])
    # The outbox re-writes them; ``update`` leaves ``updated_at`` (what the nightly jobs compare) as it is.
    Note.objects.filter(agent_id=agent_id, index_dirty=False, erased_at__isnull=True).exclude(
        pk__in=[n.pk for n in batch if n.agent_id == agent_id]
    ).update(index_dirty=True)
    return stats.indexed_average
