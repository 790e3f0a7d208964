"""Recall on stores of short personal notes: what the plugin and mem0's client keep, asked what users ask.

    python -m bench personal [--split fit|held|all] [--limit 10] [--model NAME] [--ranking NAME=VALUE …]
    python -m bench personal --small 8 …   (English stores only)

Each file in bench/personal_sets/ is one author's store (README there): 60 notes about one
invented user, written through the product's full write path (``add_memory``, offline: dedup,
folds, links, as mem0's client with ``infer`` or the plugin's capture would write them), and 30
messages that user sends an assistant, each with the notes a good assistant would want in its
prompt. Each store is its own agent with its own index collection. Every message is searched
as the product searches it (``search``, default ranking, heat on, in file order) and scored:

- **hit@k**: a gold note among the first k matches (messages with gold notes only);
- **all@5**: every gold note among the first 5;
- **MRR**: the reciprocal rank of the first gold note (0 past ``--limit``).

A note the write path folded into another counts as that note. ``--small N``: a user's first days
instead, each English store as six seeded draws of N of its notes (an agent each), asked the
messages with a gold note among them (gold kept to those). ``--ranking`` tries another value
of a setting of engine/retrieval/search.py's ``Ranking`` (choose on ``--split fit`` only).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.curation.sets import read_jsonl
from bench.search import setup_django

SETS = Path(__file__).with_name("personal_sets")
CUTS = (1, 3, 5)


@dataclass(frozen=True)
class Store:
    author: str
    lang: str
    split: str
    notes: list[dict]
    messages: list[dict]
    draw: str = ""  # a small store's draw ("-8-0"): its own agent, its author's rows


@dataclass
class Scores:
    asked: int = 0
    hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(CUTS, 0))
    all_at_5: int = 0
    reciprocal: float = 0.0

    def add(self, ranked: list[str], gold: set[str]) -> None:
        self.asked += 1
        for k in CUTS:
            self.hits[k] += bool(gold & set(ranked[:k]))
        self.all_at_5 += gold <= set(ranked[:5])
        first = next((i for i, key in enumerate(ranked, start=1) if key in gold), None)
        self.reciprocal += 1 / first if first else 0.0

    def merge(self, other: Scores) -> None:
        self.asked += other.asked
        self.all_at_5 += other.all_at_5
        self.reciprocal += other.reciprocal
        for k in CUTS:
            self.hits[k] += other.hits[k]

    def row(self, name: str) -> str:
        share = [f"{self.hits[k] / self.asked:.3f}" for k in CUTS] if self.asked else ["—"] * len(CUTS)
        rest = f"{self.all_at_5 / self.asked:.3f} | {self.reciprocal / self.asked:.3f}" if self.asked else "— | —"
        return f"| {name} | {self.asked} | {' | '.join(share)} | {rest} |"


def stores(split: str) -> list[Store]:
    """The README's table: author, language and split of each file."""
    table = {}
    for line in (SETS / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].endswith("-store.jsonl"):
            table[cells[0]] = (cells[1], cells[2], cells[3])
    found = []
    for name, (author, lang, part) in sorted(table.items()):
        if split not in ("all", part):
            continue
        rows = read_jsonl(SETS / name)
        notes = [r for r in rows if r["kind"] == "note"]
        messages = [r for r in rows if r["kind"] == "message"]
        found.append(Store(author, lang, part, notes, messages))
    return found


DRAWS = 6


def small_stores(stores_: list[Store], size: int) -> list[Store]:
    """Each English store as ``DRAWS`` seeded draws of ``size`` notes and the messages they answer."""
    drawn = []
    for store in stores_:
        if store.lang != "en":
            continue
        for seed in range(DRAWS):
            notes = random.Random(seed).sample(store.notes, size)
            kept = {n["id"] for n in notes}
            asked = [dict(m, gold=[g for g in m["gold"] if g in kept]) for m in store.messages if set(m["gold"]) & kept]
            drawn.append(Store(store.author, store.lang, store.split, notes, asked, f"-{size}-{seed}"))
    return drawn


def write_store(store: Store) -> tuple[object, dict[str, str]]:
    """A fresh agent holding the store's notes; the file's note ids → the note each landed in."""
    from engine.write.pipeline import add_memory
    from memories.models import Agent

    # Its own collection, as the retrieval benchmarks' agents have: BM25's word weights are the
    # collection's, so a store sharing one would score by whichever other stores were written.
    name = f"personal-{store.author}{store.draw}"
    agent = Agent.objects.create(pk=name, collection=name)
    landed = {}
    for note in store.notes:
        written = add_memory(note["text"], agent)
        landed[note["id"]] = str(written.note.pk)
    return agent, landed


def score(store: Store, agent, landed: dict[str, str], limit: int, scores: Scores) -> None:
    from engine.retrieval.search import search

    for message in store.messages:
        gold = {landed[g] for g in message["gold"]}
        if not gold:
            continue
        ranked = [str(r.note.pk) for r in search(message["text"], agent, limit=limit) if r.via == "match"]
        scores.add(ranked, gold)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("fit", "held", "all"), default="all")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--model", default="", help="AMEM_EMBED_MODEL for this run (default: the product's)")
    parser.add_argument("--ranking", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--small", type=int, default=0, metavar="N", help="stores of N notes drawn from each")
    parser.add_argument("--data-dir", default="")
    args = parser.parse_args()
    if args.model:
        os.environ["AMEM_EMBED_MODEL"] = args.model
    setup_django(args.data_dir or tempfile.mkdtemp(prefix="amem-personal-"))
    from bench.pipeline import try_settings
    from engine import runtime
    from engine.retrieval.search import RANKING

    try_settings(RANKING, args.ranking)

    started = time.perf_counter()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    by: dict[str, Scores] = defaultdict(Scores)
    chosen = stores(args.split)
    for store in small_stores(chosen, args.small) if args.small else chosen:
        agent, landed = write_store(store)
        mine = Scores()
        score(store, agent, landed, args.limit, mine)
        for key in (
            f"{store.author} ({store.split}, {store.lang})",
            f"{store.split}, {store.lang}",
            store.split,
            "all",
        ):
            by[key].merge(mine)
    settings = ", ".join(args.ranking) or "product defaults"
    print(
        f"**personal stores, {runtime.embedder().model_name}, {settings}**: limit {args.limit}, "
        f"{time.perf_counter() - started:.0f} s, load at start {load}. "
        f"Command: `python -m bench personal --split {args.split}"
        + (f" --small {args.small}" if args.small else "")
        + "".join(f" --ranking {s}" for s in args.ranking)
        + (f" --model {args.model}" if args.model else "")
        + "`\n"
    )
    print("| store | messages with gold | hit@1 | hit@3 | hit@5 | all@5 | MRR |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    # Each store, then the groups: split and language, split, all.
    for key in sorted(by, key=lambda k: ("(" not in k, -k.count(","), k == "all", k)):
        print(by[key].row(key))


if __name__ == "__main__":
    main()
