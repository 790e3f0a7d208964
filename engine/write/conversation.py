"""Conversation ingest: every turn an episodic note that knows the turn before it.

A chat turn on its own is often an answer without its question ("Yes, last
weekend!"). So each turn is stored as written, with the previous turn of the
same session as its ``context``: the one recipe (engine/text.py) embeds and
indexes content + context, and a question asked later finds the turn that
answered it. Adjacent turns of a session are linked both ways, so the link walk
after a search brings the surrounding exchange along.

On LoCoMo the previous turn as context moved the fused recall@10 from 0.590 to
0.615, and indexing it for BM25 too to 0.627 (docs/benchmarks.md). No LLM, no
dedup: the episodic path, for transcripts and hot loops.

One turn never sinks a session: a turn the quality gate or the length limit refuses
("Jon: Bye!", a 30,000-character paste) is skipped and reported by its position, and
still serves as the next turn's context (cut to the length limit), because the turn
after a bare "Yes!" answers that "Yes!". A turn that cannot be stored at all (control
characters) is skipped and gives no context. A request that is malformed (wrong types, a
time without a zone, bad labels), or in which every turn is refused, writes nothing.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from engine import locking, metrics, pacing
from engine.config import get_config
from engine.errors import AmemError, Busy, InvalidInput, QualityRejected
from engine.index.embeddings import one_torch_thread
from engine.retrieval.surrounding import ADJACENT
from engine.text import check_content, storable
from engine.write.pipeline import (
    STORE_CHUNK,
    EpisodicItem,
    embed_notes,
    prepare_episodic,
    resolve_agent,
    store_episodic,
)
from memories.models import Agent, Link, Note

MAX_TURNS = 5000
EMBED_CHUNK = 128  # turns embedded per step of a long conversation


@dataclass(frozen=True)
class Turn:
    text: str
    # Turns with the same session label that follow each other are one exchange.
    session: str = ""
    source: str | None = None  # the caller's message id, kept in the note's sources
    occurred_at: dt.datetime | None = None
    subjects: Sequence[str] = ()
    # None: the previous turn of the session. A caller that dropped turns (an importer skipping
    # a rejected line) passes what it computed on the full conversation.
    context: str | None = None


@dataclass(frozen=True)
class SkippedTurn:
    position: int  # 0-based index of the turn in the call
    reason: str


@dataclass
class StoredConversation:
    notes: list[Note]  # the stored turns, in order
    skipped: list[SkippedTurn]


def previous_turns(turns: Sequence[Turn]) -> list[str]:
    """For each turn, the text of the turn just before it in the same session ('' for the first).

    A turn whose text cannot be stored at all (control characters, not a string) gives no
    context: it is skipped, and as context it would make the turn after it fail too.
    """
    before = [""]
    for prev, turn in itertools.pairwise(turns):
        usable = isinstance(prev.text, str) and storable(prev.text)
        before.append(prev.text.strip() if usable and prev.session == turn.session else "")
    return before[: len(turns)]


def cut_context(text: str, max_chars: int) -> str:
    """A context within the note length limit: its end is kept, the part nearest the turn it precedes."""
    text = text.strip()
    return text[-max_chars:].lstrip() if len(text) > max_chars else text


def contexts(turns: Sequence[Turn]) -> list[str]:
    """Each turn's context, from every turn (refused ones included), cut to the length limit."""
    limit = get_config().max_note_chars
    return [
        cut_context(t.context if t.context is not None else prev, limit)
        for t, prev in zip(turns, previous_turns(turns), strict=True)
    ]


def refusal(turn: Turn) -> str | None:
    """Why the text rules would refuse this turn's text on its own (too short, too long), or None.

    A text that is not a string is a malformed request, not a refused turn: it raises.
    """
    cfg = get_config()
    if not isinstance(turn.text, str | bytes):
        raise InvalidInput("every turn's text must be a string")
    try:
        check_content(turn.text, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars)
    except AmemError as exc:
        return str(exc)
    return None


@metrics.timed(metrics.WRITE_SECONDS, path="conversation")
def add_conversation(
    agent: Agent | str,
    turns: Sequence[Turn],
    *,
    scope: str = "private",
    link_adjacent: bool = True,
    actor: str | None = None,
    deadline: float | None = None,
) -> StoredConversation:
    """Store the acceptable ``turns`` in order, one note each, in one transaction.

    Turns whose text is refused are skipped and reported (``skipped``); anything else that
    is wrong with the request raises before a write, as does a call where every turn is refused.
    ``deadline`` (``time.monotonic()``): past it, stop embedding and raise Busy, having written nothing.
    """
    agent = resolve_agent(agent)
    if not turns:
        return StoredConversation([], [])
    if len(turns) > MAX_TURNS:
        raise InvalidInput(f"a conversation may hold at most {MAX_TURNS} turns per call; split it")
    kept: list[Turn] = []
    items: list[EpisodicItem] = []
    skipped: list[SkippedTurn] = []
    for position, (turn, context) in enumerate(zip(turns, contexts(turns), strict=True)):
        reason = refusal(turn)
        if reason is not None:
            skipped.append(SkippedTurn(position, reason))
            continue
        kept.append(turn)
        items.append(
            EpisodicItem(
                turn.text,
                subjects=turn.subjects,
                sources=[turn.source] if turn.source else [],
                occurred_at=turn.occurred_at,
                scope=scope,
                context=context,
                session=turn.session,
            )
        )
    if not kept:
        first = skipped[0]
        raise QualityRejected(f"[quality] every turn was refused (turn {first.position}: {first.reason})")
    notes = prepare_episodic(agent, items)  # raises on malformed fields before anything is written
    _embed(notes, deadline)
    _store(agent, kept, notes, link_adjacent=link_adjacent, actor=actor)
    return StoredConversation(notes, skipped)


def _embed(notes: list[Note], deadline: float | None) -> None:
    """Embed in chunks on one torch thread, giving up (nothing written yet) past ``deadline``.

    One thread: a long conversation must leave the other cores to the searches of other
    agents. Chunks: the deadline (``time.monotonic()``) is looked at between them, the one
    bound on a request's time that holds under gunicorn's threads (docs/deploy.md).
    """
    for start in range(0, len(notes), EMBED_CHUNK):
        if deadline is not None and time.monotonic() > deadline:
            raise Busy(
                f"the conversation took too long to embed ({start} of {len(notes)} turns); "
                "nothing was stored: retry later, or send fewer turns per call",
                retry_after=30,
            )
        if start:
            pacing.give_way()
        with one_torch_thread():
            embed_notes(notes[start : start + EMBED_CHUNK])


@locking.retry_on_conflict
def _store(agent: Agent, kept: list[Turn], notes: list[Note], *, link_adjacent: bool, actor: str | None) -> None:
    """All turns or none: one transaction, run again whole if the database picks it as a deadlock victim."""
    with transaction.atomic():
        store_episodic(agent, notes, actor=actor, path="conversation", read_facts=True)
        if link_adjacent:
            for chunk in pacing.chunks(adjacent_links(kept, notes, actor or agent.pk), 2 * STORE_CHUNK):
                Link.objects.bulk_create(chunk, ignore_conflicts=True)


def adjacent_links(turns: Sequence[Turn], notes: Sequence[Note], actor: str) -> list[Link]:
    """Both directions between consecutive stored turns of one session (a skipped turn is stepped over)."""
    rows: list[Link] = []
    for (t1, n1), (t2, n2) in zip(
        zip(turns, notes, strict=False), zip(turns[1:], notes[1:], strict=False), strict=False
    ):
        if t1.session == t2.session:
            rows.append(Link(source=n1, target=n2, created_by=actor, reason=ADJACENT))
            rows.append(Link(source=n2, target=n1, created_by=actor, reason=ADJACENT))
    return rows
