"""The recall bundle: what an agent should know right now, packed to a token budget.

Order and priority are the same: core memory first (the agent's own blocks, then
the subject's), then the notes most relevant to the query, the current facts they
or the query mention, and the latest episode summary. Items are added whole, in
that order, while they fit; a core block that does not fit whole is cut at a token
boundary (core memory is always there, even at the smallest budget); any other item
that does not fit is left out and the next one is tried. Tokens are counted on the
final text with engine/layers/tokens.py, so ``tokens`` ≤ ``token_budget`` always.

Text format (stable; documented in docs/memory-layers.md)::

    # Core memory
    [persona] {"name":"Ada"}
    [user @alex] {"likes":["tea"]}
    # Relevant notes
    - (2026-05-01) Alex moved to Lisbon in May.
    # Facts
    - alex lives_in Lisbon (since 2026-05-01)
    # Latest episode (session s1, ended 2026-05-02 10:00)
    Episode: session s1, …

A section header appears only when at least one of its items fits. The JSON holds
exactly the items the text holds (a cut core block with its full value).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from engine.annotations import facts
from engine.errors import InvalidInput
from engine.layers import core, episodes, tokens
from engine.retrieval.search import search
from memories.models import Agent

MIN_BUDGET, MAX_BUDGET = 64, 32_000
MAX_LIMIT = 50
MIN_ROOM = 16  # tokens left for the bundle after the caller's wrapper: less would hold nothing useful


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
    limit: int = 8,
    wrapper: str = "",
) -> Bundle:
    """``wrapper``: the text the caller puts around ``text`` (its tags, a heading), all of it; it is
    counted against ``token_budget`` and in ``tokens``, so the whole injected block fits the budget."""
    if not isinstance(token_budget, int) or not MIN_BUDGET <= token_budget <= MAX_BUDGET:
        raise InvalidInput(f"token_budget must be between {MIN_BUDGET} and {MAX_BUDGET}")
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    framing = tokens.count(wrapper)
    if token_budget - framing < MIN_ROOM:
        raise InvalidInput(
            f"the wrapper takes {framing} of the {token_budget} tokens, leaving less than {MIN_ROOM} for the bundle"
        )
    bundle = Bundle(token_budget=token_budget)
    packer = _Packer(token_budget - framing)

    packer.section("# Core memory")
    for block in core.blocks_for_recall(agent, subject):
        label = f"[{block.name}{' @' + block.subject if block.subject else ''}]"
        line = f"{label} {json.dumps(block.value, ensure_ascii=False, separators=(',', ':'))}"
        if packer.add(line, clip=True):
            bundle.core.append({"name": block.name, "subject": block.subject, "value": block.value})

    results = search(query, agent, limit=limit, subject=subject, heat=False)
    packer.section("# Relevant notes")
    for result in results:
        note = result.note
        if note.layer == "episode":
            continue  # the episode has its own section
        line = f"- ({_day(note.created_at)}) {' '.join(note.content.split())}"
        if packer.add(line):
            bundle.notes.append(
                {
                    "id": str(note.pk),
                    "content": note.content,
                    "similarity": float(result.similarity),
                    "created_at": note.created_at,
                }
            )

    note_ids = [n["id"] for n in bundle.notes]
    current = [f for f in facts.facts_of_notes(agent, note_ids) if f.invalid_at is None]
    chosen = {f.pk: f for f in [*facts.mentioned_in(agent, query), *current]}
    packer.section("# Facts")
    for fact in chosen.values():
        if packer.add(fact_line(fact)):
            bundle.facts.append(
                {
                    "id": fact.pk,
                    "subject": fact.subject,
                    "relation": fact.relation,
                    "object": fact.object,
                    "valid_from": fact.valid_from,
                    "invalid_at": fact.invalid_at,
                }
            )

    episode = episodes.latest(agent)
    if episode is not None:
        packer.section(f"# Latest episode (session {episode.session}, ended {episode.ended_at:%Y-%m-%d %H:%M})")
        if packer.add(episode.note.content):
            bundle.episode = {
                "id": str(episode.note_id),
                "summary": episode.note.content,
                "session": episode.session,
                "ended_at": episode.ended_at,
            }

    bundle.text = packer.text
    bundle.tokens = tokens.count(bundle.text) + framing
    return bundle
