"""Retrieval benchmarks through the real engine: ingest, search, evidence recall@k.

Each conversation (LoCoMo) or user (MADial) is its own agent with its own index
collection (Mode B), so nothing leaks between them and BM25's IDF is per store.
Ingest goes through one function, ``ingest``, so the write path is switched in
one place. Recall counts a returned note for every id in its ``sources`` (a note
folded from several turns covers each of them) and counts k as notes returned,
link results included, and every note in a result's context (the turns around a match ride
along inside it: engine/retrieval/surrounding.py).
"""

from __future__ import annotations

import datetime as dt
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from bench.data import Question
from bench.pipeline import FULL, Pipeline
from engine import runtime
from engine.index_sync.indexer import sync_dirty
from engine.retrieval.search import Result, search
from engine.write.conversation import Turn, add_conversation
from engine.write.pipeline import EpisodicItem, add_episodic_batch, add_memory
from memories.models import Agent, Note


@dataclass(frozen=True)
class Memory:
    source: str
    text: str
    occurred_at: dt.datetime
    session: int = 0


@dataclass(frozen=True)
class IngestOptions:
    """How memories enter the store. Every option is an ingestion choice, documented with its effect."""

    # "conversation": engine.write.conversation.add_conversation (each turn with the previous turn of its
    # session as context, adjacent turns linked) — the product's transcript path;
    # "episodic": add_episodic_batch, each memory on its own (no LLM);
    # "memory": add_memory (the full pipeline, offline provider).
    path: str = "conversation"
    # Prefix each turn with its session date ("[8 May 2023] Caroline said, …").
    date_in_text: bool = False


@dataclass(frozen=True)
class Variant:
    """One row of the ablation table: which stages run and how many matches fill the k slots."""

    key: str
    name: str
    pipeline: Pipeline = FULL
    links: bool = False
    heat: bool = False
    # Matches asked for at cut-off k; the rest of the k slots go to link results.
    matches_for: Callable[[int], int] = lambda k: k
    # Measured after one pass of every question through the default search (limit 10, heat on):
    # what an agent's store looks like once it has been used.
    preheat: bool = False


def round2(base: Pipeline = FULL) -> Pipeline:
    """Round 2's ranking: RRF, pools of 2·k, a one-link lift, no named dates."""
    return replace(base, fusion="rrf", pool_factor=2, pool_min=20, link_lift_far=0.0, date_boost=0.0)


def variants(base: Pipeline = FULL, *, link_share: bool = False, blend_weights: Sequence[float] = ()) -> list[Variant]:
    """The ablation rows. Benchmark probes do not heat the store (like internal look-ups), except in
    the "probes heat" row, which shows what accumulated heat does to the ranking."""
    # The plain rows are what a search was before each stage: no turns carried around a match either.
    plain = replace(base, heat_boost=False, link_lift=0.0, date_boost=0.0, context_span=0)
    rows = [
        Variant("bm25", "BM25 only", replace(plain, dense=False)),
        Variant("dense", "dense only", replace(plain, lexical=False)),
        Variant("rrf", "RRF (no heat, no links, no dates)", replace(plain, fusion="rrf")),
        Variant("round2", "round 2 ranking (RRF, pools 2·k, one-link lift)", round2(base), links=True),
        Variant("fusion", "score fusion (no heat, no links, no dates)", plain),
        Variant("dates", "score fusion + named dates", replace(plain, date_boost=base.date_boost)),
        Variant(
            "lift",
            "score fusion + dates + link lift (no heat, no walk)",
            replace(plain, date_boost=base.date_boost, link_lift=base.link_lift),
        ),
        Variant("full", "full pipeline", base, links=True),
        Variant(
            "nocontext",
            "full, no turns around a match (neighbours take slots)",
            replace(base, context_span=0),
            links=True,
        ),
        Variant("span1", "full, one turn each way around a match", replace(base, context_span=1), links=True),
        Variant("span2", "full, two turns each way around a match", replace(base, context_span=2), links=True),
        Variant("nolift", "full, no link lift", replace(base, link_lift=0.0, link_lift_far=0.0), links=True),
        Variant("bare", "full, no walk", base),
        Variant("share40", "full, dense share 0.4 at every query length", replace(base, dense_share=0.4), links=True),
        Variant("share50", "full, dense share 0.5 at every query length", replace(base, dense_share=0.5), links=True),
        Variant("heated", "full, after one heated pass of the questions", base, links=True, preheat=True),
        Variant("heat", "full, probes heat the store", base, links=True, heat=True),
    ]
    for weight in blend_weights:
        # The forgetting-curve blend (engine/annotations/importance.py) on top of the full pipeline.
        blended = replace(base, importance_weight=weight)
        rows.append(Variant(f"blend{weight:g}", f"full + importance blend w={weight:g}", blended, links=True))
    if link_share:
        # Links only count if they get slots: up to half of k (at most 8) goes to them.
        rows.append(Variant("share", "full, k/2 matches + links", base, links=True, matches_for=_link_share))
    return rows


def _link_share(k: int) -> int:
    return max(1, k - min(8, k // 2))


def date_label(when: dt.datetime) -> str:
    return f"{when.day} {when:%B %Y}"


def ingest(agent: Agent, memories: Sequence[Memory], options: IngestOptions) -> list[Note]:
    """Write ``memories`` for ``agent`` through the chosen write path, then index what the writes left
    for the outbox (as the server's drainer would, moments later)."""
    notes = _write(agent, memories, options)
    sync_dirty(among=Note.objects.filter(agent_id=agent.pk))
    return notes


def _write(agent: Agent, memories: Sequence[Memory], options: IngestOptions) -> list[Note]:
    """The one switch point between the write paths."""
    texts = [f"[{date_label(m.occurred_at)}] {m.text}" if options.date_in_text else m.text for m in memories]
    if options.path == "conversation":
        turns = [
            Turn(t, session=str(m.session), source=m.source, occurred_at=m.occurred_at)
            for t, m in zip(texts, memories, strict=False)
        ]
        return add_conversation(agent, turns, actor="bench").notes
    if options.path == "episodic":
        items = [
            EpisodicItem(t, sources=[m.source], occurred_at=m.occurred_at)
            for t, m in zip(texts, memories, strict=False)
        ]
        return add_episodic_batch(agent, items, actor="bench")
    if options.path == "memory":
        notes = []
        for text, m in zip(texts, memories, strict=False):
            result = add_memory(text, agent, sources=[m.source], occurred_at=m.occurred_at, actor="bench")
            notes.append(result.note)
        return notes
    raise ValueError(f"unknown ingest path {options.path!r}")


@dataclass
class Scores:
    """recall@k per (variant, category, k), one value per question."""

    ks: tuple[int, ...]
    values: dict[tuple[str, str, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    searches: int = 0
    seconds: float = 0.0

    def add(self, variant: str, category: str, k: int, value: float) -> None:
        self.values[(variant, category, k)].append(value)

    def mean(self, variant: str, category: str | None, k: int) -> float:
        if category is None:
            vals = [v for (n, _c, kk), vs in self.values.items() if n == variant and kk == k for v in vs]
        else:
            vals = self.values.get((variant, category, k), [])
        return float(np.mean(vals)) if vals else float("nan")

    def count(self, variant: str, category: str | None) -> int:
        k = self.ks[0]
        if category is None:
            return sum(len(vs) for (n, _c, kk), vs in self.values.items() if n == variant and kk == k)
        return len(self.values.get((variant, category, k), []))


def query_vectors(texts: list[str]) -> np.ndarray:
    return runtime.embedder().encode_queries(texts)


def session_of(source: str) -> str:
    """The session a source id names: "D3" of LoCoMo's "D3:5" (every benchmark's ids are "session:turn")."""
    return source.split(":", 1)[0]


def evaluate(
    agent: Agent,
    questions: Sequence[Question],
    variants: Sequence[Variant],
    scores: Scores,
    sessions: Scores | None = None,
) -> None:
    """Search every question at every k under every variant and record evidence recall, and in
    ``sessions`` whether the results hold a gold session at all (1 or 0), per agent (one user's history)."""
    if not questions:
        return
    vectors = query_vectors([q.text for q in questions])
    started = time.perf_counter()
    # Rows that see heat run after the cold rows: first the rows measured after one heated pass
    # of the questions, then the rows whose probes heat the store themselves.
    cold = [v for v in variants if not v.heat and not v.preheat]
    preheated = [v for v in variants if v.preheat]
    for batch in (cold, preheated, [v for v in variants if v.heat]):
        if batch and batch is preheated:
            heat_pass(agent, questions, vectors, batch[0].pipeline)
        for question, vector in zip(questions, vectors, strict=False):
            for variant in batch:
                found: dict[int, list[Result]] = {}
                limits = search_limits(scores.ks, variant, variant.pipeline)
                for k in scores.ks:
                    limit = limits[k]
                    if limit not in found:
                        found[limit] = search(
                            question.text,
                            agent,
                            limit=limit,
                            links=variant.links,
                            heat=variant.heat,
                            ranking=variant.pipeline,
                            query_vector=vector,
                        )
                        scores.searches += 1
                    results = found[limit][:k]
                    covered = {
                        s for r in results for n in (r.note, *(c.note for c in r.surrounding)) for s in n.sources
                    }
                    scores.add(variant.name, question.category, k, len(question.gold & covered) / len(question.gold))
                    if sessions is not None:
                        gold = {session_of(g) for g in question.gold}
                        hit = any(session_of(c) in gold for c in covered)
                        sessions.add(variant.name, agent.pk, k, float(hit))
    scores.seconds += time.perf_counter() - started


def search_limits(ks: Sequence[int], variant: Variant, pipeline: Pipeline) -> dict[int, int]:
    """The limit to search at for each cut-off k.

    A search at a larger limit with the same pools returns the smaller one's matches first
    (everything before the cut depends on the pools only), so cut-offs that share a pool
    share one search at the largest of them: k = 1, 5, 10 (pools of 20) cost one search, not
    three. Not when probes heat (each search changes the next) or when links take slots."""
    shareable = not variant.heat and all(variant.matches_for(k) == k for k in ks)
    limits = {k: min(variant.matches_for(k), 100) for k in ks}
    if not shareable:
        return limits
    largest: dict[int, int] = {}
    for k in ks:
        pool = pipeline.pool(limits[k])
        largest[pool] = max(largest.get(pool, 0), limits[k])
    return {k: largest[pipeline.pool(limits[k])] for k in ks}


def heat_pass(agent: Agent, questions: Sequence[Question], vectors: np.ndarray, pipeline: Pipeline) -> None:
    """One pass of the questions through the default search, heating what it returns."""
    for question, vector in zip(questions, vectors, strict=True):
        search(question.text, agent, limit=10, ranking=pipeline, query_vector=vector)


def markdown_table(scores: Scores, variants: Sequence[str], categories: Sequence[str]) -> str:
    """One row per variant and category (plus 'all'), one column per k."""
    head = "| variant | category | questions | " + " | ".join(f"R@{k}" for k in scores.ks) + " |"
    rule = "| --- | --- | ---: | " + " | ".join("---:" for _ in scores.ks) + " |"
    lines = [head, rule]
    for name in variants:
        for category in [*categories, None]:
            label = "**all**" if category is None else category
            cells = " | ".join(f"{scores.mean(name, category, k):.3f}" for k in scores.ks)
            lines.append(f"| {name} | {label} | {scores.count(name, category)} | {cells} |")
    return "\n".join(lines)
