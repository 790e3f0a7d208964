"""A match's surrounding turns: the turns around it in its conversation, carried inside the result.

A chat turn is often half of an exchange ("A sunset, last week" answers "What did you paint?").
The conversation path links adjacent turns of a session (``ADJACENT``); a search result carries
the turns up to ``span`` places before and after its match, so the exchange is seen without a
neighbour taking one of the ``limit`` result slots. A candidate already among an earlier
match's turns is not offered again as a match of its own: the slots go to other places in the
history (docs/architecture.md §4, measured in docs/benchmarks.md, "Matches with the turns around
them").

Which neighbour comes first: the conversation path writes each pair of adjacent turns as two
link rows, earlier → later first, so of two linked turns the one whose outgoing row is older
(lower id) is the earlier turn. Every turn is re-read through ``memories.access.visible_notes``:
a retired, foreign or out-of-subject note is never shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.retrieval.links import LinkRow, touching
from memories import access
from memories.models import Agent, Note

# The reason on the link rows between adjacent turns of a session (engine/write/conversation.py writes them).
ADJACENT = "adjacent turn"
BEFORE, AFTER = "before", "after"
# The fields of a surrounding turn that answers show (docs/api.md: search, recall; the mem0 router).
SHOWN = ("content", "sources", "created_at", "session")


@dataclass(frozen=True)
class Surrounding:
    note: Note
    position: str  # BEFORE or AFTER the match
    distance: int  # turns away from the match (1 = adjacent)


@dataclass
class Neighbours:
    """Adjacent turns as read from the link rows: for each note, the turn before and the turn after."""

    before: dict[str, str]
    after: dict[str, str]

    def around(self, note_id: str, span: int) -> list[tuple[str, str, int]]:
        """(id, position, distance) of the turns within ``span`` of ``note_id``, nearest first, the
        turns before it first; stops where the links stop (a session's first or last turn)."""
        found: list[tuple[str, str, int]] = []
        for position, step in ((BEFORE, self.before), (AFTER, self.after)):
            current = note_id
            for distance in range(1, span + 1):
                current = step.get(current, "")
                if not current or current == note_id:
                    break
                found.append((current, position, distance))
        return found


def neighbours(
    note_ids: Iterable[str], span: int, rows: Sequence[LinkRow] | None = None, *, read: bool = True
) -> Neighbours:
    """The adjacent-turn links around ``note_ids``, ``span`` turns deep: ``rows`` (``links.touching``
    of these notes, when the caller has read them) for the first turn, one query per further turn.

    ``read=False`` makes no query: every turn of depth is taken from ``rows``. Of a note more than
    one turn away only the links that touch one of ``note_ids`` are known then, which is all that
    is needed to tell which of ``note_ids`` lie within ``span`` of one another (a path of two links
    between two of them touches one of them with each link)."""
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    frontier = list(dict.fromkeys(note_ids))
    seen = set(frontier)
    for depth in range(span):
        if not frontier:
            break
        found = rows if rows is not None and (depth == 0 or not read) else touching(frontier)
        # Each row both ways, by id: of a linked pair the turn whose outgoing row is older came first.
        row_id = {(r.source, r.target): r.pk for r in found if r.reason == ADJACENT}
        wanted = set(frontier)
        next_frontier: list[str] = []
        for (source, target), out in row_id.items():
            if source not in wanted:
                continue
            back = row_id.get((target, source))
            earlier = back is not None and back < out
            (before if earlier else after).setdefault(source, target)
            if target not in seen:
                seen.add(target)
                next_frontier.append(target)
        frontier = next_frontier
    return Neighbours(before, after)


def covered(note_ids: Sequence[str], links: Neighbours, span: int) -> set[str]:
    """The notes ``note_ids`` and the turns within ``span`` of each."""
    return {*note_ids, *(n for i in note_ids for n, _pos, _d in links.around(i, span))}


def surrounding_of(
    agent: Agent, matches: Sequence[Note], links: Neighbours, span: int, *, subject: str | None
) -> dict[str, list[Surrounding]]:
    """For each match, the turns around it that ``agent`` may read, the turns before it first (earliest
    first), then the turns after it (nearest first). One read for all of them."""
    around = {str(m.pk): links.around(str(m.pk), span) for m in matches}
    wanted = dict.fromkeys(i for found in around.values() for i, _pos, _d in found)
    # Only what a surrounding turn shows is read (``SHOWN``): building whole notes with every JSON
    # field was the largest cost the turns added to a search.
    shown = access.visible_notes(agent, wanted, subject=subject, only=SHOWN) if wanted else []
    readable = {str(n.pk): n for n in shown}
    out: dict[str, list[Surrounding]] = {}
    for match_id, found in around.items():
        notes = [Surrounding(readable[i], pos, d) for i, pos, d in found if i in readable]
        earlier = sorted((c for c in notes if c.position == BEFORE), key=lambda c: -c.distance)
        out[match_id] = earlier + [c for c in notes if c.position == AFTER]
    return out
