"""Heat: a bounded tie-breaker for notes that keep being retrieved (docs/architecture.md §4).

The seed multiplied the fused score by ``1 + w·ln(1 + retrieval_count)/(age_days + 1)``
(w = 0.05, the age measured from ``last_accessed``, else ``created_at``). Right after a
retrieval that is +3–20 %, while neighbouring RRF scores differ by 1–2 % (1/61 against
1/62): a burst of queries let notes that were merely asked about often push real matches
out of the top k (LoCoMo R@1 0.244 → 0.208; a note found only by a unique word fell out of
limit=10).

So heat is now an additive bonus smaller than a fixed step: it decides between notes the
fusion scores (nearly) alike, and can never lift a note above one that is clearly better.
With the score fusion (engine/retrieval/fusion.py, scores in 0–1) the step is 0.002 — on
LoCoMo the gap between the 9th and 10th match is smaller than that for one question in ten,
between the 1st and 2nd for fewer than one in a hundred; with RRF it is one rank at the top
of one leg, ``1/(k+1) − 1/(k+2)``. Inside that bound the seed's boost still sets its size:
``level = b/(b + 0.05)`` with ``b = w·ln(1 + count)/(age_days + 1)``, rounded down to quarters, ``bonus = step · level``.
So a recently retrieved note wins a tie against a cold one, and ``w`` (``AMEM_HEAT_WEIGHT``;
0 switches heat off) sets how quickly the level saturates. The quarters keep heat coarse
(at w = 0.05 and age 0: retrieved once, three times, twenty times): in a burst of varied
queries the notes retrieved most are hubs that match everything a little, and a hub
retrieved 1,000 times must not win every tie against an answer retrieved 80 times (on a
small fixture that alone cost R@1 one question in twelve). Knowledge notes get none: a
fact is not more true because it was asked for often.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
import uuid
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Protocol

from django.db import OperationalError, connection

from engine import locking
from engine.index_sync import outbox
from memories import raw_rows
from memories.models import Note


class Recalled(Protocol):
    """What heat reads of a note (a Note, or a search's candidate row)."""

    @property
    def note_type(self) -> str: ...
    @property
    def retrieval_count(self) -> int: ...
    @property
    def last_accessed(self) -> dt.datetime | None: ...
    @property
    def created_at(self) -> dt.datetime: ...


# The seed's default weight: a boost b of this size is half a step.
REFERENCE_WEIGHT = 0.05
LEVELS = 4  # heat is rounded down to quarters of a step (0, ¼, ½, ¾)


def seed_boost(note: Recalled, now: dt.datetime, weight: float) -> float:
    """The seed's relative boost ``w·ln(1 + count)/(age_days + 1)``; 0 for knowledge or cold notes."""
    if note.note_type == Note.KNOWLEDGE or weight <= 0 or not note.retrieval_count:
        return 0.0
    since = note.last_accessed or note.created_at
    age_days = max((now - since).total_seconds() / 86400.0, 0.0)
    return weight * math.log1p(note.retrieval_count) / (age_days + 1.0)


# The most heat may ever add to a fused score in 0–1 (engine/retrieval/fusion.py: score_fuse).
SCORE_STEP = 0.002


def tie_step(rrf_k: int) -> float:
    """What one rank is worth at the top of one RRF leg: the most heat may add to an RRF score."""
    return 1.0 / (rrf_k + 1) - 1.0 / (rrf_k + 2)


def heat_bonus(note: Recalled, now: dt.datetime, weight: float, step: float = SCORE_STEP) -> float:
    """Added to the fused score of ``note``; always below ``step``."""
    boost = seed_boost(note, now, weight)
    level = math.floor(LEVELS * boost / (boost + REFERENCE_WEIGHT)) / LEVELS
    return step * level


def bump_heat(note_ids: Sequence, now: dt.datetime) -> None:
    """Count one retrieval of these notes (a search's returned matches).

    In the server (a process whose outbox drainer runs) the count is kept in memory and written by
    the drainer's next round, within ``outbox.INTERVAL`` seconds, off the request: a search then
    writes nothing. A crash loses the retrievals of those last seconds; heat only breaks ties, and
    the notes are not touched otherwise. Elsewhere (commands, the nightly worker, tests) it is
    written at once.
    """
    ids = [i if isinstance(i, uuid.UUID) else uuid.UUID(str(i)) for i in note_ids]
    if not ids:
        return
    if outbox.running():
        with _pending_lock:
            for note_id in ids:
                count, _ = _pending.get(note_id, (0, now))
                _pending[note_id] = (count + 1, now)
        outbox.each_round(flush_heat)
        return
    _count(ids, 1, now)


# Retrievals counted in this process and not yet written: note id → (how many, the latest moment).
_pending: dict[uuid.UUID, tuple[int, dt.datetime]] = {}
_pending_lock = threading.Lock()


def flush_heat() -> None:
    """Write the retrievals counted since the last flush (the drainer's rounds call this)."""
    global _pending
    with _pending_lock:
        taken, _pending = _pending, {}
    groups: dict[int, list[uuid.UUID]] = defaultdict(list)
    for note_id, (count, _) in taken.items():
        groups[count].append(note_id)
    # One statement per distinct count; ``last_accessed`` is the flush's latest moment for all of
    # them, at most a round later than a note's own (heat ages over days).
    latest = max((when for _, when in taken.values()), default=None)
    for count, ids in groups.items():
        assert latest is not None
        _count(ids, count, latest)


@locking.retry_on_conflict
def _count(ids: list[uuid.UUID], count: int, now: dt.datetime) -> None:
    """``count`` more retrievals of these notes, the last at ``now``.

    A note another transaction holds locked at this instant (a write folding into it, the
    indexer marking it; on SQLite, any write transaction longer than a moment) is not counted this
    time: heat only breaks ties, while waiting for locks could deadlock with another writer of heat
    and fail it (engine/locking.py).
    """
    table = connection.ops.quote_name(Note._meta.db_table)  # the columns are the fields' names
    if connection.vendor == "postgresql":
        # Only the rows free now (``FOR UPDATE SKIP LOCKED`` in a subquery, as ``locking.free_rows``
        # takes them), in one statement: the ORM's form took four round trips (BEGIN, the lock, the
        # UPDATE, COMMIT), a tenth of the request threads' time in the HTTP load test
        # (docs/benchmarks.md, "Where the time goes"), and it refuses ``select_for_update`` outside
        # a transaction, even in a subquery.
        _count_retrieval(
            f"id IN (SELECT id FROM {table} WHERE id = ANY(%s) ORDER BY id FOR UPDATE SKIP LOCKED)", [ids], count, now
        )
        return
    try:
        with locking.briefly():
            # SQLite has no row locks to skip: one UPDATE, its own transaction (or a part of the
            # caller's). The ORM's form (a transaction, a SELECT of the free rows, the UPDATE and
            # the COMMIT, each compiled) cost 1.7 ms of a 20 ms search at 10k notes.
            _count_retrieval(*raw_rows.among_ids("id", [raw_rows.as_key(Note, i) for i in ids]), count, now)
    except OperationalError as exc:
        if not locking.is_busy(exc):
            raise
        # SQLite: a long write holds the database; these retrievals go uncounted.


def _count_retrieval(where: str, params: list[Any], count: int, now: dt.datetime) -> None:
    """``count`` more retrievals, the last at ``now``, of the notes ``where`` selects (SQL, ``%s`` for ``params``)."""
    table = connection.ops.quote_name(Note._meta.db_table)
    at = Note._meta.get_field("last_accessed").get_db_prep_value(now, connection)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET retrieval_count = retrieval_count + %s, last_accessed = %s WHERE {where}",
            [count, at, *params],
        )
