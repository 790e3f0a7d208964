"""Scale benchmark: bulk episodic ingest (notes/s) and filtered hybrid index query latency.

Run by hand, never in CI:

    .venv/bin/python -m bench scale                      # 10k and 100k notes
    .venv/bin/python -m bench scale --sizes 10000        # quicker
    .venv/bin/python -m bench scale --sizes 10000 --database-url postgres://…/DB   # PostgreSQL

It builds its own SQLite database and embedded Qdrant shard in a scratch folder
(``--data-dir``, default a temp dir), ingests synthetic memories through the real
``add_episodic_batch`` (real MiniLM embeddings, real outbox sync into
qdrant-edge) for 20 agents, then times the index query every search makes: a
hybrid (the dense and BM25 legs search() runs, fused in Python) query filtered by one agent's access rules. Query
vectors are embedded beforehand, so the latency is the index's own.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from bench.harness import scratch_django

SUBJECTS = ["Alex", "Sam", "the team", "the customer", "Priya", "the on-call engineer", "Mei", "the manager"]
VERBS = ["moved", "fixed", "prefers", "asked about", "scheduled", "reviewed", "cancelled", "deployed", "tested"]
OBJECTS = [
    "the billing service",
    "the Qdrant shard",
    "the release notes",
    "a dentist appointment",
    "the marathon plan",
    "the database migration",
    "the design review",
    "the quarterly report",
    "dark mode",
    "the flight to Berlin",
    "the coffee order",
    "the backup job",
    "the onboarding doc",
    "the API rate limit",
    "the hiring loop",
]
TIMES = ["on Monday", "after lunch", "next week", "in March", "before the demo", "at 9:30", "last night", "today"]


def sentence(rng: random.Random, vocab: list[str]) -> str:
    extra = " ".join(rng.sample(vocab, 3))
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TIMES)} ({extra})."


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data-dir", default="")
    parser.add_argument(
        "--database-url", default="", help="an empty PostgreSQL database (default: SQLite in the data dir)"
    )
    args = parser.parse_args()

    more = {"DATABASE_URL": args.database_url} if args.database_url else {}
    data_dir = scratch_django(args.data_dir, "amem-scale-", **more)
    from tqdm import tqdm

    from engine import runtime
    from engine.index.store import bm25_query_vector
    from engine.index.tokenize import tokenize
    from engine.write.pipeline import EpisodicItem, add_episodic_batch
    from memories import access
    from memories.models import Agent, Note

    agents = [Agent.objects.get_or_create(pk=f"a{i:02d}")[0] for i in range(args.agents)]
    rng = random.Random(7)
    vocab = [f"{rng.choice('bcdfgklmnprstvz')}{rng.choice('aeiou')}{rng.choice('lmnrst')}{i}" for i in range(5000)]
    runtime.embedder().encode(["warm-up"])
    print(f"data dir: {data_dir}\n")
    print("| notes | ingest notes/s | optimize s | hybrid query p50 ms | p95 ms | filtered dense p50 ms |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")

    store = runtime.store()
    collection = access.collection_for(agents[0])
    for size in sorted(args.sizes):
        have = Note.objects.count()
        todo = added = size - have
        started = time.perf_counter()
        with tqdm(total=todo, unit="note", desc=f"ingest to {size}", file=sys.stderr) as bar:
            while todo > 0:
                n = min(args.batch, todo)
                agent = agents[(have // args.batch) % len(agents)]
                add_episodic_batch(agent, [EpisodicItem(sentence(rng, vocab)) for _ in range(n)], actor="bench")
                todo -= n
                have += n
                bar.update(n)
        rate = added / (time.perf_counter() - started) if added > 0 else float("nan")
        t0 = time.perf_counter()
        store.optimize()
        optimize_s = time.perf_counter() - t0

        texts = [sentence(rng, vocab) for _ in range(args.queries)]
        vectors = runtime.embedder().encode(texts)
        hybrid, dense = [], []
        for text, vector in zip(texts, vectors, strict=True):
            agent = rng.choice(agents)
            flt = access.index_filter(agent)
            sparse = bm25_query_vector(tokenize(text))
            t = time.perf_counter()
            # What search() does: both legs (40 each), fused in Python afterwards.
            store.query_dense(collection, vector, flt, 40)
            store.query_sparse(collection, sparse, flt, 40)
            hybrid.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            store.query_dense(collection, vector, flt, 40)
            dense.append((time.perf_counter() - t) * 1000)
        print(
            f"| {size:,} | {rate:.0f} | {optimize_s:.1f} | {statistics.median(hybrid):.2f} | "
            f"{percentile(hybrid, 0.95):.2f} | {statistics.median(dense):.2f} |",
            flush=True,
        )
    runtime.close_store()
