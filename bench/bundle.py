"""What an agent sees: gold evidence inside the recall bundle, per token budget.

usage: nice .venv/bin/python -m bench bundle locomo|madial [--budgets 250 500 1000 2000]
       [--data-dir DIR] [--conversations 0-9] [--search] [--misses] [--ceiling]

An agent does not read a top-k list: ``POST /api/v1/recall`` hands it one bundle cut to a
token budget (engine/layers/recall.py: build, the function the endpoint calls). For every
question this calls ``build`` at each budget and scores the share of the question's gold
evidence the bundle carries:

- a turn counts when its note is in the bundle, when a fact in the bundle was read from its
  note, or when an episode summary in the bundle quotes it (one of its sentences, or the first
  60 characters of one, appears in the summary: an offline summary quotes turns, and a
  summary that merely covers a session without saying what the turn said does not carry it);
- ``tokens`` is what the bundle actually used (the endpoint's own count).

LoCoMo: each conversation is one agent (its own collection), its turns written through the
conversation path (context, adjacent links, offline facts), every session then closed into an
episode as the idle job would. MADial: each user one agent, its memories written through the
episodic path (they are events, not turns); zh and en are scored apart. ``--search`` adds
search R@k beside it (the default search, cold and after one heated pass of the questions).

``--data-dir`` keeps the ingested stores: a later run with the same data, write recipe and
model only searches (heat counters reset first). Runs in a throw-away dir otherwise.

``--misses`` locates what the largest budget's bundles leave out: each missing gold turn's rank
in a search of the question at limit 100 (a high rank: a better packing could reach it; not in
the top 100: no bundle will).

``--ceiling`` bounds what any packing or re-ranking of today's candidates could reach: the share of
gold evidence among the first N matches of a search at limit 100 (N = 10, 30, 40, 60, 100). A
bundle of a given budget holds about as many notes as one of these cut-offs; evidence the top 100
does not hold needs new candidates, not a better order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.search import setup_django

BUDGETS = (250, 500, 1000, 2000)
# Bump when the stored notes change (the write path or the episode closing): kept stores are rebuilt.
RECIPE = "conversation path + every session closed, v2 (BM25 length per agent)"


@dataclass
class Tally:
    """Evidence share and tokens per (group, budget, category), one value per question."""

    evidence: dict[tuple[str, int, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    used: dict[tuple[str, int], list[int]] = field(default_factory=lambda: defaultdict(list))
    seconds: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    answers: dict[tuple[str, int], list[float]] = field(default_factory=lambda: defaultdict(list))

    def record(self, row: dict) -> None:
        budget = row["budget"]
        for g in (row["group"], "all"):
            self.evidence[(g, budget, row["category"])].append(row["share"])
            self.used[(g, budget)].append(row["tokens"])
            if row.get("answer_words") is not None:
                self.answers[(g, budget)].append(row["answer_words"])
        self.seconds[budget] += row["seconds"]

    def mean(self, group: str, budget: int, category: str | None) -> tuple[float, int]:
        if category is None:
            vals = [v for (g, b, _c), vs in self.evidence.items() if g == group and b == budget for v in vs]
        else:
            vals = self.evidence.get((group, budget, category), [])
        return (statistics.fmean(vals) if vals else float("nan")), len(vals)


_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


# The recall floor the bundles are built with (--min-relevance; None: the product's).
FLOOR: list[float | None] = [None]


def quoted(summary: str, text: str) -> bool:
    """Whether ``summary`` quotes ``text``: one of its sentences (or that sentence's first 60
    characters, as a summary cuts long ones) appears in it."""
    flat = " ".join(summary.split())
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        probe = sentence[:60].strip()
        if len(probe) >= 20 and probe in flat:
            return True
    return False


def bundle_sources(agent, bundle) -> set[str]:
    """The gold ids (note ``sources``) the bundle carries: its notes and the turns around them, the
    notes its facts were read from, and the turns its episode summaries quote."""
    from memories.models import Episode, Fact, Note

    note_ids = [i for n in bundle.notes for i in (n["id"], *(s["id"] for s in n.get("surrounding", ())))]
    fact_notes = [s for f in Fact.objects.filter(pk__in=[f["id"] for f in bundle.facts]) for s in f.sources]
    carried = set(note_ids) | set(fact_notes)
    episodes = list(getattr(bundle, "episodes", None) or ([bundle.episode] if bundle.episode else []))
    found: set[str] = set()
    for note in Note.objects.filter(pk__in=list(carried)):
        found.update(note.sources)
    for item in episodes:
        episode = Episode.objects.filter(note_id=item["id"]).first()
        if episode is None:
            continue
        for turn in Note.objects.filter(pk__in=episode.turn_ids):
            if quoted(item["summary"], turn.content):
                found.update(turn.sources)
    return found


_WORD = re.compile(r"\w+")
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "with",
        "by",
        "from",
        "or",
        "is",
        "was",
        "were",
        "be",
        "her",
        "his",
        "their",
        "its",
    ]
)


def answer_words(answer: str, text: str) -> float | None:
    """Share of the reference answer's content words found in the bundle text (None: no answer).

    A second view of the same bundle that needs no gold ids: a bundle that cut a note short, or
    carried a summary instead of the turn, scores here only if the words the answer needs are in it.
    """
    wanted = {w for w in _WORD.findall(answer.casefold()) if w not in _FUNCTION_WORDS}
    if not wanted:
        return None
    have = set(_WORD.findall(text.casefold()))
    return len(wanted & have) / len(wanted)


def score_bundles(agent, questions, budgets, group: str, tally: Tally, log=None) -> None:
    """Build every question's bundle at every budget; ``log`` (a text file) gets one JSON line each."""
    from engine.layers import recall

    for question in questions:
        for budget in budgets:
            t0 = time.perf_counter()
            bundle = recall.build(agent, question.text, token_budget=budget, min_relevance=FLOOR[0])
            seconds = time.perf_counter() - t0
            assert bundle.tokens <= budget, (bundle.tokens, budget)
            got = bundle_sources(agent, bundle)
            share = len(question.gold & got) / len(question.gold)
            row = {"group": group, "budget": budget, "category": question.category, "share": share}
            row["answer_words"] = answer_words(question.answer, bundle.text)
            row |= {"tokens": bundle.tokens, "seconds": seconds, "agent": agent.pk}
            tally.record(row)
            if log is not None:
                log.write(json.dumps(row) + "\n")
                log.flush()


MISS_BANDS = ((40, "top 40"), (60, "40-59"), (100, "60-99"))


# How deep the searches behind --misses and --ceiling look.
DEEP_LIMIT = 100


def deep_orders(agent, questions) -> dict[str, list]:
    """Each question's matches (note ids, best first) in one search at ``DEEP_LIMIT``: the searches
    --misses and --ceiling both read, made once."""
    from engine.retrieval.search import search

    return {
        q.text: [r.note.pk for r in search(q.text, agent, limit=DEEP_LIMIT, heat=False) if r.via == "match"]
        for q in questions
    }


def locate_misses(agent, questions, budget: int, orders, misses: dict[tuple[str, str], int]) -> None:
    """Where the gold turns a ``budget`` bundle leaves out rank in a search of the question at limit
    100: within reach of a better packing (a high rank) or beyond any bundle (not in the top 100)."""
    from engine.layers import recall
    from memories.models import Note

    by_source = {s: n.pk for n in Note.objects.filter(agent_id=agent.pk, is_active=True) for s in n.sources}
    for question in questions:
        missing = question.gold - bundle_sources(
            agent, recall.build(agent, question.text, token_budget=budget, min_relevance=FLOOR[0])
        )
        order = orders[question.text]
        for gold in missing:
            rank = order.index(by_source[gold]) if by_source.get(gold) in order else None
            band = next((name for top, name in MISS_BANDS if rank is not None and rank < top), "not in top 100")
            misses[(question.category, band)] += 1


CEILING_CUTS = (10, 30, 40, 60, DEEP_LIMIT)


def gather_ceiling(agent, questions, orders, ceiling: dict[tuple[int, str], list[float]]) -> None:
    """Per question and cut-off N: the share of its gold evidence among the search's first N matches."""
    from memories.models import Note

    sources = {n.pk: set(n.sources) for n in Note.objects.filter(agent_id=agent.pk, is_active=True)}
    for question in questions:
        for cut in CEILING_CUTS:
            found = set().union(*(sources.get(pk, set()) for pk in orders[question.text][:cut]))
            ceiling[(cut, question.category)].append(len(question.gold & found) / len(question.gold))


def ceiling_markdown(ceiling: dict[tuple[int, str], list[float]], categories) -> str:
    # LoCoMo's categories are numbers ("cat 1"); MADial's groups are languages, named as they are.
    lines = ["| first N matches | " + " | ".join(f"cat {c}" if c.isdigit() else c for c in categories) + " | **all** |"]
    lines.append("| ---: |" + " ---: |" * (len(categories) + 1))
    for cut in CEILING_CUTS:
        cells = [statistics.fmean(ceiling[(cut, c)]) if ceiling.get((cut, c)) else float("nan") for c in categories]
        every = [v for c in categories for v in ceiling.get((cut, c), [])]
        overall = statistics.fmean(every) if every else float("nan")
        lines.append(f"| {cut} | " + " | ".join(f"{v:.3f}" for v in cells) + f" | **{overall:.3f}** |")
    return "\n".join(lines)


def misses_markdown(misses: dict[tuple[str, str], int], categories) -> str:
    bands = [name for _, name in MISS_BANDS] + ["not in top 100"]
    lines = ["| category | gold turns missing | " + " | ".join(bands) + " |", "| --- | ---: |" + " ---: |" * len(bands)]
    for c in categories:
        counts = [misses.get((c, b), 0) for b in bands]
        lines.append(f"| {c} | {sum(counts)} | " + " | ".join(str(n) for n in counts) + " |")
    return "\n".join(lines)


def recipe_key(name: str, memories) -> str:
    from engine import runtime

    text = repr(
        (RECIPE, runtime.embedder().model_name, [(m.source, m.text, str(m.occurred_at), m.session) for m in memories])
    )
    return f"bundle bench {name} " + hashlib.sha256(text.encode()).hexdigest()[:32]


def stored_agent(name: str, memories, path: str, close_sessions: bool):
    """The agent holding ``memories``: ingested now, or by an earlier run into the kept dir."""
    from bench.evaluate import IngestOptions, ingest
    from engine.index_sync.indexer import sync_dirty
    from engine.layers import episodes
    from memories.models import Agent, Note

    key = recipe_key(name, memories)
    agent = Agent.objects.filter(pk=name).first()
    if agent is not None and agent.name == key:
        Note.objects.filter(agent_id=agent.pk).update(retrieval_count=0, last_accessed=None)
        return agent, 0.0
    if agent is not None:
        raise SystemExit(f"the data dir holds another ingest of {name}; use a new --data-dir")
    t0 = time.perf_counter()
    agent = Agent.objects.create(id=name, collection=name[:64])
    ingest(agent, memories, IngestOptions(path))
    if close_sessions:  # what the idle job does to a finished session
        for session in sorted({str(m.session) for m in memories}, key=int):
            episodes.close(agent, session, closed_by="idle", actor="bench")
        sync_dirty(among=Note.objects.filter(agent_id=agent.pk))  # the server's drainer, moments later
    agent.name = key
    agent.save(update_fields=["name"])
    return agent, time.perf_counter() - t0


def conversation_range(spec: str, count: int) -> list[int]:
    if not spec:
        return list(range(count))
    lo, _, hi = spec.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def stores(args):
    """(group, agent name, memories, questions, write path, close sessions) per store to score."""
    from bench.data import data_dir, load_locomo, load_madial
    from bench.evaluate import Memory

    data = Path(args.data) if args.data else data_dir()
    if args.benchmark == "locomo":
        conversations = load_locomo(data / "locomo10.json")
        for i in conversation_range(args.conversations, len(conversations)):
            conv = conversations[i]
            turns = [Memory(t.dia_id, t.text, t.occurred_at, t.session) for t in conv.turns]
            group = "tune 0-4" if i < 5 else "held-out 5-9"
            yield group, f"bundle-locomo-{conv.name}", turns, conv.questions, "conversation", True
    else:
        for lang in ("zh", "en"):
            users = load_madial(data / "madial", lang)
            for i, (user, events, questions) in enumerate(users):
                rows = [Memory(m.id, m.text, m.occurred_at) for m in events]
                # Tuned on the first half of the users only; the second half is held out.
                half = "tune" if i < len(users) // 2 else "held-out"
                yield f"{lang} {half}", f"bundle-madial-{lang}-{user}", rows, questions, "episodic", False


def markdown(tally: Tally, budgets, categories, groups) -> str:
    head = (
        "| set | budget | "
        + " | ".join(f"cat {c}" for c in categories)
        + " | **all** | answer words | tokens used (mean / max) | ms per bundle |"
    )
    rule = "| --- | ---: | " + " | ".join("---:" for _ in categories) + " | ---: | ---: | ---: | ---: |"
    lines = [head, rule]
    for group in groups:
        for budget in budgets:
            cells = []
            for c in categories:
                value, n = tally.mean(group, budget, c)
                cells.append(f"{value:.3f} ({n})" if n else "-")
            overall, n = tally.mean(group, budget, None)
            used = tally.used[(group, budget)]
            per = 1000 * tally.seconds[budget] / max(len(tally.used[("all", budget)]), 1)
            words = tally.answers.get((group, budget))
            lines.append(
                f"| {group} | {budget} | {' | '.join(cells)} | **{overall:.3f}** ({n}) | "
                f"{statistics.fmean(words) if words else float('nan'):.3f} | "
                f"{statistics.fmean(used):.0f} / {max(used)} | {per:.0f} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", choices=["locomo", "madial", "report"])
    parser.add_argument(
        "--data", default="", help="folder holding locomo10.json and madial/ (default $AMEM_BENCH_DATA)"
    )
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--conversations", default="", help="LoCoMo conversations by index, e.g. 0-4 or 5-9")
    parser.add_argument("--data-dir", default="", help="keep the ingested stores here and reuse them")
    parser.add_argument("--search", action="store_true", help="also search R@k (default search, cold and heated)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="try another value of a constant of engine/layers/recall_notes.py (tuning runs only)",
    )
    parser.add_argument(
        "--ranking",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="try another value of a setting of the search's ranking (engine/retrieval/search.py: Ranking)",
    )
    parser.add_argument(
        "--min-relevance", type=float, default=None, help="the recall floor (default: the product's; 0: none)"
    )
    parser.add_argument("--jsonl", default="", help="append one JSON line per bundle here (runs in parallel)")
    parser.add_argument(
        "--misses",
        action="store_true",
        help="where the largest budget's missing gold turns rank in a search at limit 100",
    )
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="gold evidence among the first 10/30/40/60/100 matches of a search at limit 100",
    )
    parser.add_argument("logs", nargs="*", help="report: the --jsonl files to merge into the tables")
    args = parser.parse_args()
    FLOOR[0] = args.min_relevance
    if args.benchmark == "report":
        report(args.logs, args.budgets)
        return

    with tempfile.TemporaryDirectory(prefix="amem-bundle-") as tmp:
        folder = args.data_dir or tmp
        Path(folder).mkdir(parents=True, exist_ok=True)
        setup_django(folder)
        from bench.evaluate import Scores, evaluate, markdown_table, variants
        from bench.pipeline import try_settings
        from engine import runtime
        from engine.layers import recall_notes
        from engine.retrieval.search import RANKING

        try_settings(recall_notes, args.set)
        try_settings(RANKING, args.ranking)

        started = time.perf_counter()
        load_at_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
        tally, ingest_s = Tally(), 0.0
        rows = [v for v in variants() if v.key in ("full", "heated")]
        search_scores: dict[str, Scores] = defaultdict(lambda: Scores((1, 5, 10, 20)))
        misses: dict[tuple[str, str], int] = defaultdict(int)
        ceiling: dict[tuple[int, str], list[float]] = defaultdict(list)
        groups: list[str] = []
        for group, name, memories, questions, path, close in stores(args):
            agent, spent = stored_agent(name, memories, path, close)
            ingest_s += spent
            with open(args.jsonl or os.devnull, "a", encoding="utf-8") as log:
                score_bundles(agent, questions, args.budgets, group, tally, log)
            orders = deep_orders(agent, questions) if args.misses or args.ceiling else {}
            if args.misses:
                locate_misses(agent, questions, max(args.budgets), orders, misses)
            if args.ceiling:
                gather_ceiling(agent, questions, orders, ceiling)
            if args.search:
                # After the bundles: the heated row warms the store, and bundles are measured cold.
                evaluate(agent, questions, rows, search_scores[group])
                evaluate(agent, questions, rows, search_scores["all"])
            groups += [group] if group not in groups else []
            print(f"{name}: {len(memories)} memories, {len(questions)} questions", file=sys.stderr, flush=True)
        categories = (
            ["1", "2", "3", "4"]
            if args.benchmark == "locomo"
            else [lang for lang in ("zh", "en") if any(g.startswith(lang) for g in groups)]
        )
        shown = [*groups, "all"] if args.benchmark == "locomo" and len(groups) > 1 else groups
        print(
            f"**bundle evidence, {args.benchmark}, {runtime.embedder().model_name}**: ingest {ingest_s:.0f} s, "
            f"total {time.perf_counter() - started:.0f} s, load {load_at_start} → "
            + " ".join(f"{x:.2f}" for x in os.getloadavg())
            + f". Command: `python -m bench bundle {' '.join(sys.argv[1:])}`\n"
        )
        if args.benchmark == "madial":
            print(madial_markdown(tally, args.budgets, groups))
        else:
            print(markdown(tally, args.budgets, categories, shown))
        if args.misses:
            cats = categories
            print(
                f"\ngold turns missing from the {max(args.budgets)}-token bundle, by their rank in a search at limit 100:\n"
            )
            print(misses_markdown(misses, cats))
        if args.ceiling:
            cats = categories
            print("\ngold evidence among the first N matches of a search at limit 100 (any packing's ceiling):\n")
            print(ceiling_markdown(ceiling, cats))
        if args.search:
            for group in shown if args.benchmark == "locomo" else [*groups, "all"]:
                print(f"\nsearch R@k, {group}:\n")
                print(markdown_table(search_scores[group], [r.name for r in rows], categories))
        runtime.close_store()


def report(logs: list[str], budgets) -> None:
    """The tables of one or more ``--jsonl`` logs (chunks of one run made in parallel)."""
    tally, groups = Tally(), []
    for path in logs:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            tally.record(row)
            groups += [row["group"]] if row["group"] not in groups else []
    budgets = sorted({b for (_g, b) in tally.used})
    if all(g.split()[0] in ("zh", "en") for g in groups):
        print(madial_markdown(tally, budgets, groups))
    else:
        order = [g for g in ("tune 0-4", "held-out 5-9") if g in groups]
        print(markdown(tally, budgets, ["1", "2", "3", "4"], [*order, "all"] if len(order) > 1 else order))


def madial_markdown(tally: Tally, budgets, groups) -> str:
    """Per language and half of the users (``groups``: "zh tune", "zh held-out", …), then per language."""
    head = "| language | users | budget | evidence in bundle | tokens used (mean / max) |"
    lines = [head, "| --- | --- | ---: | ---: | ---: |"]
    for group in sorted(groups, key=lambda g: (g.split()[0] != "zh", g.split()[1] != "tune")):
        lang, half = group.split()
        for budget in budgets:
            value, n = tally.mean(group, budget, None)
            used = tally.used[(group, budget)]
            lines.append(
                f"| {lang} | {half} | {budget} | {value:.3f} ({n}) | {statistics.fmean(used):.0f} / {max(used)} |"
            )
    for lang in [lang for lang in ("zh", "en") if any(g.startswith(lang) for g in groups)]:
        for budget in budgets:
            value, n = tally.mean("all", budget, lang)
            lines.append(f"| {lang} | all | {budget} | {value:.3f} ({n}) | |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
