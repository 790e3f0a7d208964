"""The recall bundle: what an agent should know right now, packed to a token budget.

Sections, in this order: core memory (the agent's own blocks, then the subject's), the notes
most relevant to the query, the current facts they or the query mention, the latest episode
summary. A core block that does not fit whole is cut at a token boundary (core memory is
always there, even at the smallest budget). Then the budget goes, in priority order, to the
first ``FIRST_NOTES`` notes, the facts, the latest episode, and finally to as many further
notes as still fit: a large budget is filled, a small one keeps its facts and episode. Which
notes, and how they are written (oldest first, one line per day, sessions taking turns), is
engine/layers/recall_notes.py. Tokens are counted with engine/layers/tokens.py on the final
text, so ``tokens`` ≤ ``token_budget`` always.

Text format (stable; documented in docs/memory-layers.md)::

    # Core memory
    [persona] {"name":"Ada"}
    [user @alex] {"likes":["tea"]}
    # Relevant notes
    [1 May 2026]
    - Alex moved to Lisbon in May.
    # Facts
    - alex lives_in Lisbon (since 2026-05-01)
    # Latest episode (session s1, ended 2026-05-02 10:00)
    Episode: session s1, …

A section header appears only when at least one of its items fits. The JSON holds
exactly the items the text holds, in the text's order (a cut core block with its full value).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from engine.annotations import facts
from engine.errors import InvalidInput
from engine.layers import core, episodes, recall_notes, tokens
from engine.retrieval import relevance_weights
from engine.retrieval.search import search
from memories.models import Agent

MIN_BUDGET, MAX_BUDGET = 64, 32_000
MAX_LIMIT = 50
MIN_ROOM = 16  # tokens left for the bundle after the caller's wrapper: less would hold nothing useful
# Notes placed before the facts and the latest episode; the rest of the budget takes more notes after them.
FIRST_NOTES = 8
# The latest episode's summary (up to 2,000 characters) is cut to this share of the room: it says
# what happened last time, and the notes say what the query needs. On LoCoMo conversations 0–4 at
# 1,000 tokens: whole (up to ~200 tokens) 0.824 of the gold evidence, a tenth 0.829, no episode at
# all 0.837 (docs/benchmarks.md, "Recall bundle").
EPISODE_SHARE = 0.1


@dataclass
class Bundle:
    text: str = ""
    tokens: int = 0
    token_budget: int = 0
    core: list[dict] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)
    facts: list[dict] = field(default_factory=list)
    episode: dict | None = None

    def as_dict(self) -> dict:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "token_budget": self.token_budget,
            "tokenizer": tokens.NAME,
            "core": self.core,
            "notes": self.notes,
            "facts": self.facts,
            "episode": self.episode,
        }


class _Packer:
    """Appends lines while the whole text stays within the budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.lines: list[str] = []
        self.header_pending: str | None = None

    def section(self, header: str) -> None:
        self.header_pending = header

    def _fits(self, lines: list[str]) -> bool:
        return tokens.count("\n".join(self.lines + lines)) <= self.budget

    def add(self, line: str, *, clip: bool = False) -> bool:
        new = [self.header_pending, line] if self.header_pending else [line]
        if self._fits(new):
            self.lines += new
            self.header_pending = None
            return True
        if not clip:
            return False
        room = self.budget - tokens.count("\n".join(self.lines + new[:-1])) - 1  # the newline
        cut = tokens.clip(line, room) if room > 0 else ""
        if cut and self._fits([*new[:-1], cut]):
            self.lines += [*new[:-1], cut]
            self.header_pending = None
            return True
        return False

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _day(moment) -> str:
    return moment.strftime("%Y-%m-%d") if moment else "?"


def fact_line(fact) -> str:
    since = f" (since {_day(fact.valid_from)})" if fact.valid_from else ""
    return f"- {fact.subject} {fact.relation} {fact.object}{since}"


def build(
    agent: Agent,
    query: str,
    *,
    token_budget: int = 1200,
    subject: str | None = None,
    limit: int | None = None,
    wrapper: str = "",
    min_relevance: float | None = None,
) -> Bundle:
    """The bundle for ``query``; ``limit`` caps the notes (None: as many as the budget holds).

    ``min_relevance``: notes less likely than this to bear on the query are left out (None: the
    product's floor, engine/retrieval/relevance_weights.py; 0: none are).

    ``wrapper``: the text the caller puts around ``text`` (its tags, a heading), all of it; it is
    counted against ``token_budget`` and in ``tokens``, so the whole injected block fits the budget."""
    if not isinstance(token_budget, int) or not MIN_BUDGET <= token_budget <= MAX_BUDGET:
        raise InvalidInput(f"token_budget must be between {MIN_BUDGET} and {MAX_BUDGET}")
    if limit is not None and (not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT):
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    floor = relevance_weights.FLOOR if min_relevance is None else min_relevance
    if isinstance(floor, bool) or not isinstance(floor, int | float) or not 0 <= floor <= 1:
        raise InvalidInput("min_relevance must be between 0 and 1")
    framing = tokens.count(wrapper)
    if token_budget - framing < MIN_ROOM:
        raise InvalidInput(
            f"the wrapper takes {framing} of the {token_budget} tokens, leaving less than {MIN_ROOM} for the bundle"
        )
    bundle = Bundle(token_budget=token_budget)
    room = token_budget - framing  # what the bundle's own text may use
    packer = _Packer(room)

    packer.section("# Core memory")
    for block in core.blocks_for_recall(agent, subject):
        label = f"[{block.name}{' @' + block.subject if block.subject else ''}]"
        line = f"{label} {json.dumps(block.value, ensure_ascii=False, separators=(',', ':'))}"
        if packer.add(line, clip=True):
            bundle.core.append({"name": block.name, "subject": block.subject, "value": block.value})
    core_lines = list(packer.lines)

    results = search(query, agent, limit=recall_notes.candidate_limit(room, limit), subject=subject, heat=False)
    # A relevance that is not known (a model without weights) passes: no floor can be applied.
    ranked = [r for r in recall_notes.diversified(results) if r.relevance is None or r.relevance >= floor]
    cap = len(ranked) if limit is None else limit
    # First the notes the bundle always had room for, then facts and the latest episode, then
    # the rest of the budget goes to further notes: a large budget is filled, and a small one
    # still keeps its facts and episode after the best notes.
    notes = recall_notes.NoteSection()
    header = tokens.count("# Relevant notes")
    spent = tokens.count(packer.text)

    def take_notes(upto: int) -> None:
        nonlocal spent
        for result in ranked:
            if len(notes.chosen) >= min(upto, cap):
                return
            if notes.has(result):
                continue
            # With the turns around it if they fit, else alone.
            for beside in (notes.fresh(result), []):
                extra = notes.cost(result, beside) + (0 if notes.chosen else header)
                if spent + extra <= room:
                    notes.take(result, beside)
                    spent += extra
                    break

    take_notes(FIRST_NOTES)
    first_ids = [str(r.note.pk) for r in notes.chosen]

    current = [f for f in facts.facts_of_notes(agent, first_ids) if f.invalid_at is None]
    chosen_facts = {f.pk: f for f in [*facts.mentioned_in(agent, query), *current]}
    fact_lines: list[str] = []
    for fact in chosen_facts.values():
        extra = tokens.count(fact_line(fact)) + (0 if fact_lines else tokens.count("# Facts"))
        if spent + extra <= room:
            fact_lines.append(fact_line(fact))
            spent += extra
            bundle.facts.append(facts.as_dict(fact))  # the API's RecallFactOut shows a fact's triple and times

    episode = episodes.latest(agent)
    episode_lines: list[str] = []
    if episode is not None:
        head = f"# Latest episode (session {episode.session}, ended {episode.ended_at:%Y-%m-%d %H:%M})"
        summary = episode.note.content
        cap = int(EPISODE_SHARE * room) - tokens.count(head)
        if tokens.count(summary) > cap:
            summary = tokens.clip(summary, cap) if cap >= MIN_ROOM else ""
        extra = tokens.count(head) + tokens.count(summary)
        if summary and spent + extra <= room:
            episode_lines = [head, summary]
            spent += extra
            bundle.episode = {
                "id": str(episode.note_id),
                "summary": summary,
                "session": episode.session,
                "ended_at": episode.ended_at,
            }

    take_notes(len(ranked))
    bundle.text = _render(core_lines, notes, fact_lines, episode_lines)
    # Counts add up line by line (the tokenizer splits on whitespace); should a text ever count
    # more than its lines, the last notes chosen give way rather than the budget.
    while tokens.count(bundle.text) > room and notes.chosen:
        notes.drop_last()
        bundle.text = _render(core_lines, notes, fact_lines, episode_lines)
    bundle.tokens = tokens.count(bundle.text) + framing
    # The text is a timeline (oldest first, what an agent reads best); the list is most relevant
    # first, with the fused score the search ranked it by: a caller that keeps only the best few
    # or filters by relevance reads it from the top (a small store's notes by date put a 0.02
    # cosine first and the one relevant note last).
    for result in notes.chosen:
        bundle.notes.append(
            {
                "id": str(result.note.pk),
                "content": result.note.content,
                "similarity": float(result.similarity),
                "score": round(float(result.score), 4),
                "relevance": None if result.relevance is None else round(result.relevance, 4),
                "created_at": result.note.created_at,
                "surrounding": [
                    {"id": str(s.note.pk), "content": s.note.content, "position": s.position}
                    for s in notes.beside.get(result.note.pk, [])
                ],
            }
        )
    return bundle


def _render(core_lines: list[str], notes: recall_notes.NoteSection, fact_lines: list[str], episode: list[str]) -> str:
    note_block = ["# Relevant notes", *notes.lines()] if notes.chosen else []
    fact_block = ["# Facts", *fact_lines] if fact_lines else []
    return "\n".join([*core_lines, *note_block, *fact_block, *episode])
