"""The recall floor's data: real questions asked of real chat stores, what the search returns, to label.

    python -m bench relevance dump --out DIR      # builds the stores, writes DIR/<split>-<lang>.jsonl

Each LoCoMo conversation (English) and each MADial user (Chinese) is its own agent, written through
the product's write path (``bench.evaluate.ingest``). Asked of it: questions about that store
(LoCoMo's QA, MADial's dialogue openings, both written by the datasets' authors) and as many
questions taken from *another* store, which this one cannot answer (the message a floor exists
for: nothing here bears on it). Per question the top ``--limit`` matches are kept with what the
search knew about each (cosine, BM25 score and ranks, fused score).

Splits (never mixed): fit = LoCoMo conv-26/30/41/42/43 + MADial zh user 0; held = LoCoMo
conv-44/47/48/49/50 + MADial zh user 1. The labellers see only the question and the note
(bench/relevance_sets/TASK.md); what the search knew stays in the dump. The floor fitted on
``fit`` is reported on ``held`` (``python -m bench relevance report``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from bench.data import data_dir, load_locomo, load_madial

FIT_CONVERSATIONS = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
# Questions per store: its own, and another store's. MADial has one Chinese store per split, so its
# foreign questions are the other user's (their texts appear in both splits, asked of other notes).
ASKED = {"en": (12, 6), "zh": (40, 20)}


def _stores() -> list[tuple[str, str, str, list, list[str]]]:
    """(split, lang, store name, memories, its own questions) for every store."""
    from bench.evaluate import Memory

    out = []
    for conv in load_locomo(data_dir() / "locomo10.json"):
        split = "fit" if conv.name in FIT_CONVERSATIONS else "held"
        memories = [Memory(t.dia_id, t.text, t.occurred_at, t.session) for t in conv.turns]
        out.append((split, "en", conv.name, memories, [q.text for q in conv.questions]))
    for i, (user, memories, questions) in enumerate(load_madial(data_dir() / "madial", "zh")):
        rows = [Memory(m.id, m.text, m.occurred_at) for m in memories]
        out.append(("fit" if i == 0 else "held", "zh", f"madial-zh-{user}", rows, [q.text for q in questions]))
    return out


def dump(out: Path, limit: int, seed: int, langs: tuple[str, ...]) -> None:
    from engine.retrieval.search import search
    from memories.models import Agent

    from bench.evaluate import IngestOptions, ingest

    rng = random.Random(seed)
    stores = [s for s in _stores() if s[1] in langs]
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[tuple[str, str], list[dict]] = {}
    for split, lang, name, memories, own in stores:
        agent = Agent.objects.create(pk=f"rel-{name}")
        ingest(agent, memories, IngestOptions())
        # Foreign questions: another store's of the same language (and split, where there are several).
        others = [q for s, lg, n, _, qs in stores if lg == lang and n != name and (s == split or lang == "zh") for q in qs]
        n_own, n_foreign = ASKED[lang]
        asked = [(q, "own") for q in rng.sample(own, min(n_own, len(own)))]
        asked += [(q, "foreign") for q in rng.sample(others, min(n_foreign, len(others)))]
        for question, origin in asked:
            for rank, r in enumerate(search(question, agent, limit=limit, explain=True, heat=False, links=False), 1):
                rows.setdefault((split, lang), []).append(
                    {
                        "store": name,
                        "query": question,
                        "origin": origin,
                        "rank": rank,
                        "note": r.note.content,
                        "similarity": r.similarity,
                        "score": r.score,
                        "explain": r.explain,
                    }
                )
        print(f"{split} {lang} {name}: {len(memories)} notes, {len(asked)} questions", file=sys.stderr)
    for (split, lang), found in rows.items():
        with (out / f"{split}-{lang}.jsonl").open("w") as fh:
            for i, row in enumerate(found):
                fh.write(json.dumps({"id": f"{split}-{lang}-{i:04d}", **row}, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> None:
    from bench.harness import scratch_django

    scratch_django("", "amem-relevance-", AMEM_LLM_PROVIDER="none")
    parser = argparse.ArgumentParser(prog="python -m bench relevance", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="part", required=True)
    d = sub.add_parser("dump", help="build the stores and write what the search returns")
    d.add_argument("--out", required=True, type=Path)
    d.add_argument("--limit", type=int, default=8)
    d.add_argument("--seed", type=int, default=7)
    d.add_argument("--langs", nargs="+", default=["en", "zh"], choices=["en", "zh"])
    args = parser.parse_args(argv)
    if args.part == "dump":
        dump(args.out, args.limit, args.seed, tuple(args.langs))


if __name__ == "__main__":
    main()
