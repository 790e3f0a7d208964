"""Which notes a recall bundle carries, and how they are written into it.

Measured with ``python -m bench.bundle`` (docs/benchmarks.md, "Recall bundle"):

- **Filling the budget.** The bundle used to take the search's top 8 (plus up to 8 walked
  links) and stop, at about 700–900 tokens whatever the budget; now it asks the search for as
  many candidates as the budget could hold (``candidate_limit``) and packs them until full.
- **Diversity across sessions.** Ten neighbours of one turn fill a bundle without answering a
  question whose answer spans sessions; each further note from a session already in the bundle
  competes at a decayed score (``SESSION_DECAY`` per note already taken from it), so a slightly
  weaker match from another session gets its turn.
- **Matches with the turns around them.** A match from a conversation brings the turns before
  and after it (engine/retrieval/surrounding.py) when they fit, written around it in the
  conversation's order; a note already in the bundle is not written twice.
- **Written by day.** Notes are written oldest first under one ``[8 May 2023]`` line per day
  rather than a date on every line: the agent reads a timeline (what came first, when something
  was said), and a day shared by several notes is paid for once.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence

from engine.layers import tokens
from engine.retrieval.search import Result
from engine.retrieval.surrounding import BEFORE, Surrounding

# A budget of B tokens holds about B / TOKENS_PER_NOTE notes; the search is asked for that many
# (8–60), so diversity has a few candidates beyond what fits. Asking for more hurt: on LoCoMo
# conversation 0 at 1,000 tokens, 40 candidates 0.840, 50 candidates 0.814 (a deeper search
# rescales the legs over a larger pool and reorders the top; docs/benchmarks.md, "Recall bundle").
TOKENS_PER_NOTE = 25
MIN_CANDIDATES, MAX_CANDIDATES = 8, 60
# Each note already taken from a session multiplies the next one's score by this (LoCoMo conversation
# 0, 1,000 tokens, 50 candidates: 1.0 (no diversity) 0.795, 0.85 0.814, 0.7 0.818, 0.5 0.804).
SESSION_DECAY = 0.85


def candidate_limit(token_budget: int, limit: int | None) -> int:
    """How many matches to ask the search for: what the budget could hold, or the caller's ``limit``."""
    if limit is not None:
        return limit
    return max(MIN_CANDIDATES, min(MAX_CANDIDATES, token_budget // TOKENS_PER_NOTE))


def _session(result: Result) -> str:
    # A note outside any session is its own: diversity never holds it back.
    return result.note.session or f"note:{result.note.pk}"


def diversified(results: Sequence[Result], decay: float | None = None) -> list[Result]:
    """Matches re-ordered so that sessions take turns: greedily the best score after decay,
    ``score · decay^(notes already taken from its session)``; walked links follow, in order."""
    decay = SESSION_DECAY if decay is None else decay
    pending = [r for r in results if r.via == "match" and r.note.layer != "episode"]
    links = [r for r in results if r.via != "match" and r.note.layer != "episode"]
    taken: Counter[str] = Counter()
    order: list[Result] = []
    while pending:
        best = max(range(len(pending)), key=lambda i: (pending[i].score * decay ** taken[_session(pending[i])], -i))
        chosen = pending.pop(best)
        taken[_session(chosen)] += 1
        order.append(chosen)
    seen = {r.note.pk for r in order}
    return order + [r for r in links if r.note.pk not in seen and not seen.add(r.note.pk)]  # type: ignore[func-returns-value]


def day_label(moment: dt.datetime | None) -> str:
    return f"[{moment.day} {moment:%B %Y}]" if moment else "[undated]"


def note_line(text: str) -> str:
    return f"- {' '.join(text.split())}"


class NoteSection:
    """Matches chosen so far, each with the turns around it taken along; ``cost`` of a match (and
    those turns) is what adding it adds to the text, in tokens."""

    def __init__(self) -> None:
        self.chosen: list[Result] = []
        self.beside: dict[object, list[Surrounding]] = {}
        self._days: set[str] = set()
        self._ids: set[object] = set()

    def fresh(self, result: Result) -> list[Surrounding]:
        """The turns around ``result`` not in the section yet. (Only the nearest of the search's two
        each way, LoCoMo conversations 0-4 at 1,000 tokens: 0.772 against 0.833 for both: the
        search had passed over the second as a match of its own.)"""
        return [s for s in result.surrounding if s.note.pk not in self._ids and s.note.pk != result.note.pk]

    def cost(self, result: Result, beside: Sequence[Surrounding] = ()) -> int:
        # Lines are joined by newlines and the tokenizer splits on whitespace, so counts add up.
        day = day_label(result.note.created_at)
        lines = [note_line(result.note.content), *(note_line(s.note.content) for s in beside)]
        return sum(tokens.count(line) for line in lines) + (0 if day in self._days else tokens.count(day))

    def take(self, result: Result, beside: Sequence[Surrounding] = ()) -> None:
        self.chosen.append(result)
        self.beside[result.note.pk] = list(beside)
        self._ids.update([result.note.pk, *(s.note.pk for s in beside)])
        self._days.add(day_label(result.note.created_at))

    def drop_last(self) -> None:
        dropped = self.chosen.pop()
        self._ids.discard(dropped.note.pk)
        self._ids.difference_update(s.note.pk for s in self.beside.pop(dropped.note.pk, []))
        self._days = {day_label(r.note.created_at) for r in self.chosen}

    def has(self, result: Result) -> bool:
        return result.note.pk in self._ids

    def chosen_in_order(self) -> list[Result]:
        """Oldest first; notes of one moment (a session's turns share its time) in the order chosen."""
        return sorted(self.chosen, key=lambda r: r.note.created_at)

    def lines(self) -> list[str]:
        """Oldest first, one day line before each day's notes; a match between the turns around it."""
        out: list[str] = []
        last = None
        for result in self.chosen_in_order():
            day = day_label(result.note.created_at)
            if day != last:
                out.append(day)
                last = day
            beside = self.beside.get(result.note.pk, [])
            out += [note_line(s.note.content) for s in beside if s.position == BEFORE]
            out.append(note_line(result.note.content))
            out += [note_line(s.note.content) for s in beside if s.position != BEFORE]
        return out
