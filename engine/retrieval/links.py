"""Links at search time: the lift between candidates, and the walk after the matches.

The walk is breadth-first over Link rows, gated by relevance.

Seed semantics (docs/behaviours.md): the queue starts with the matches
at hop 0 and expands while hop < ``hops``; links are followed in stored order;
a note is marked visited *before* the gate, so a note gated out on one path is
never admitted through another; at most ``max_extra`` notes are added. Only
admitted notes are expanded further. Every candidate is re-read through
``memories.access.visible_notes``, so a link never leaks a retired, foreign or
out-of-subject note.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from engine.index.embeddings import from_bytes
from engine.index.store import cosine
from engine.retrieval.candidates import Candidate
from memories import access, raw_rows
from memories.models import Agent, Link, Note


@dataclass(frozen=True)
class LinkedNote:
    note: Note
    similarity: float
    hop: int
    parent: str


def note_cosine(qvec: np.ndarray, note: Note | Candidate) -> float:
    vector = from_bytes(note.embedding)
    return cosine(qvec, vector) if vector is not None else 0.0


class LinkRow(NamedTuple):
    # A tuple, not a dataclass: a search makes several hundred of them.
    pk: int
    source: str
    target: str
    reason: str
    created_at: object  # raw_rows.undecoded_time's value: compared only with others of one query


def targets_of(rows: Sequence[LinkRow], sources: Sequence[str]) -> dict[str, list[str]]:
    """``_targets`` from rows already read (``touching`` of notes including ``sources``)."""
    wanted = set(sources)
    out: dict[str, list[str]] = defaultdict(list)
    for row in sorted((r for r in rows if r.source in wanted), key=lambda r: (r.created_at, r.pk)):
        out[row.source].append(row.target)
    return out


def _as_ids(ids: Sequence[str]) -> dict[object, str]:
    """Each of ``ids`` (``str(UUID)``) keyed by the database's form of it (a query parameter, and what
    a row returns: 32 hex digits on SQLite, a UUID on PostgreSQL)."""
    return {key: text for text, key in raw_rows.uuid_keys(ids).items()}


def _named(as_id: dict[object, str]) -> Callable[[object], str]:
    def name(db_id: object) -> str:
        # A note outside the asked ids is named once, by slicing: uuid.UUID() per row cost more
        # than the query. PostgreSQL's text (raw_rows.uuid_text) is the name already.
        if db_id not in as_id:
            as_id[db_id] = raw_rows.canonical_uuid(str(db_id))
        return as_id[db_id]

    return name


def touching(note_ids: Sequence[str]) -> list[LinkRow]:
    """Every link into or out of the notes ``note_ids``, in one query; ids as ``str(UUID)``."""
    ids = list(dict.fromkeys(note_ids))
    if not ids:
        return []
    as_id = _as_ids(ids)
    keys = list(as_id)
    out_of, out_params = raw_rows.among_ids("source_id", keys)
    into, in_params = raw_rows.among_ids("target_id", keys)
    raw = raw_rows.select(
        Link,
        ("pk", "reason"),
        f"{out_of} OR {into}",
        [*out_params, *in_params],
        decoded=False,
        also=(
            raw_rows.uuid_text(Link, "source"),
            raw_rows.uuid_text(Link, "target"),
            raw_rows.undecoded_time(Link, "created_at"),
        ),
    )
    name = _named(as_id)
    return [LinkRow(pk, name(source), name(target), reason, at) for pk, reason, source, target, at in raw]


def link_paths(
    note_ids: Sequence[str], rows: Sequence[LinkRow] | None = None
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Between the notes ``note_ids``: (source, target) of every link, and of every path of two
    links through any note (the turn two places away). ``rows``: ``touching(note_ids)``, read
    once by a caller that needs them for more than this."""
    ids = set(note_ids)
    edges = [(r.source, r.target) for r in (touching(list(note_ids)) if rows is None else rows)]
    into: dict[str, list[str]] = defaultdict(list)  # middle note → the candidates it links to
    for source, target in edges:
        if target in ids:
            into[source].append(target)
    direct = [(s, t) for s, t in edges if s in ids and t in ids]
    two = {(s, t) for s, middle in edges if s in ids for t in into.get(middle, ()) if t != s}
    return direct, sorted(two - set(direct))


def lift(
    scores: dict[str, float],
    paths: Sequence[Sequence[tuple[str, str]]],
    shares: Sequence[float],
    eligible: set[str] | None = None,
) -> dict[str, float]:
    """Each note's rank score: its own, or its own plus a share of a note linking to it, whichever
    is highest, never above that note's. ``paths[i]`` are the (source, target) pairs i + 1 links
    apart and ``shares[i]`` their share.

    A turn that answers a question often shares few words with it, while the turn before or after
    does ("What did you paint?" / "A sunset, last week"): the conversation path links adjacent
    turns, so the answer rises with its strong neighbour and competes for the k slots instead of
    waiting behind them as a walked link; the turn two places away gets a smaller share. Only
    candidates are lifted and lift (a note in neither index pool stays out: no extra read); only
    ``eligible`` notes are lifted (the caller passes those that pass the walk's relevance gate,
    so an unrelated note never rides in on a link); only original scores are passed on, so a
    chain of links does not add up; and a lifted note stays just below the note lifting it, so
    the match that brought it keeps its place. Measured in docs/benchmarks.md, "LoCoMo round 2"
    and "round 3".
    """
    lifted = dict(scores)
    for pairs, share in zip(paths, shares, strict=True):
        for source, target in pairs:
            if source not in scores or target not in scores or (eligible is not None and target not in eligible):
                continue
            below_source = math.nextafter(scores[source], -math.inf)
            candidate = min(scores[target] + share * scores[source], below_source)
            lifted[target] = max(lifted[target], candidate)
    return lifted


def _targets(sources: Sequence[str]) -> dict[str, list[str]]:
    """Outgoing link targets of each source, in stored (creation) order."""
    out: dict[str, list[str]] = defaultdict(list)
    as_id = _as_ids(sources)
    out_of, params = raw_rows.among_ids("source_id", list(as_id))
    name = _named(as_id)
    where = f"{out_of} ORDER BY created_at, id"
    for source_id, target_id in raw_rows.select(Link, ("source_id", "target_id"), where, params, decoded=False):
        out[name(source_id)].append(name(target_id))
    return out


def walk_links(
    matches: Sequence[Note],
    qvec: np.ndarray | None,
    agent: Agent,
    *,
    subject: str | None,
    hops: int,
    min_sim: float,
    max_extra: int,
    shown: frozenset[str] = frozenset(),
    first: dict[str, list[str]] | None = None,
) -> list[LinkedNote]:
    """Notes reached from ``matches`` within ``hops`` links, in discovery order.

    Without ``qvec`` (a query the dense model cannot read) there is no gate: similarity is 0.
    """
    # ``shown``: notes the answer holds already (the turns around the matches): never read again.
    visited = {str(n.pk) for n in matches} | shown
    frontier = [str(n.pk) for n in matches]
    found: list[LinkedNote] = []
    hop = 0
    while frontier and hop < hops and len(found) < max_extra:
        hop += 1
        # ``first``: the matches' links, when the caller has read them (``targets_of``).
        targets = first if hop == 1 and first is not None else _targets(frontier)
        # One read for the whole level; order is restored from the link order below.
        wanted = [t for s in frontier for t in targets.get(s, []) if t not in visited]
        if not wanted:
            break
        readable = {str(n.pk): n for n in access.visible_notes(agent, dict.fromkeys(wanted), subject=subject)}
        next_frontier: list[str] = []
        for source in frontier:
            for target in targets.get(source, []):
                if target in visited:
                    continue
                visited.add(target)  # before the gate: a gated-out note stays out
                note = readable.get(target)
                if note is None:
                    continue
                similarity = note_cosine(qvec, note) if qvec is not None else 0.0
                # A gate of 0 (or below) switches it off, as in the seed.
                if qvec is not None and min_sim > 0 and similarity < min_sim:
                    continue
                found.append(LinkedNote(note, similarity, hop, source))
                next_frontier.append(target)
                if len(found) >= max_extra:
                    return found
        frontier = next_frontier
    return found
