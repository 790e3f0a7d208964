"""In-process search latency at scale: p50/p95 of engine.retrieval.search.search, query embedding included.

usage: .venv/bin/python -m bench search [--sizes 10000 100000] [--queries 200]

Runs in a throw-away data dir (SQLite + qdrant-edge), never in var/. For speed
the synthetic notes are bulk-inserted as database rows and index points
directly: texts are LoCoMo turns (``$AMEM_BENCH_DATA/locomo10.json``, offline
evaluation only) with a serial number, and each vector is the real MiniLM
embedding of its source turn plus Gaussian noise, re-normalised — so the index
has the cluster structure of real text without embedding 100k texts (~10 min
on 2 cores). Only the queries (LoCoMo questions, each used once per size) are
embedded, inside search(), as in production. ``--chinese`` takes texts and
queries from MADial-Bench zh instead (long Chinese queries: BM25 over Han
words and character pairs, the dense leg skipped with the English-only model).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench import data as bench_data
from bench.harness import scratch_django


def setup_django(data_dir: str) -> None:
    """Django on ``data_dir``'s SQLite file and embedded index, the offline LLM, no index server."""
    scratch_django(data_dir, "", AMEM_QDRANT_URL="", AMEM_LLM_PROVIDER="none")


def corpus(path: Path) -> tuple[list[str], list[str]]:
    from bench.data import load_locomo

    conversations = load_locomo(path)
    turns = [t.text for c in conversations for t in c.turns]
    questions = [q.text for c in conversations for q in c.questions]
    return turns, questions


def chinese_corpus(folder: Path) -> tuple[list[str], list[str]]:
    """MADial-Bench zh: its memories and every line of its dialogues as texts (1,800 or so), the
    dialogues' queries (the talk before the test turn, 160) as queries."""
    from bench.data import _jsonl, load_madial

    users = load_madial(folder, "zh")
    lines = [line for d in _jsonl(folder / "MADial-Bench-zh-dialogue.json") for line in d["dialogue"] if line.strip()]
    texts = [m.text for _, memories, _ in users for m in memories] + list(dict.fromkeys(lines))
    return texts, [q.text for _, _, questions in users for q in questions]


def populate(n: int, agents: list[str], turns: list[str], base_vectors, rng) -> None:
    """n notes spread round-robin over ``agents`` (Mode A, one shared collection), indexed."""
    import numpy as np
    from django.utils import timezone

    from engine import runtime
    from engine.config import get_config
    from engine.index.embeddings import to_bytes
    from engine.index.store import IndexPoint, bm25_document_vector
    from engine.index.tokenize import tokenize
    from engine.index_sync.indexer import payload_for
    from engine.text import content_hash, embedding_text
    from memories import access
    from memories.models import Agent, Note

    cfg = get_config()
    model = runtime.embedder().model_name
    store = runtime.store()
    owners = {a: Agent.objects.get_or_create(id=a)[0] for a in agents}
    start = Note.objects.count()
    batch = 2000
    for lo in range(start, n, batch):
        notes, points = [], []
        for i in range(lo, min(n, lo + batch)):
            src = i % len(turns)
            text = f"{turns[src]} (#{i})"
            vec = base_vectors[src] + rng.normal(0, 0.25 / np.sqrt(base_vectors.shape[1]) * 4, base_vectors.shape[1])
            vec = (vec / np.linalg.norm(vec)).astype(np.float32)
            agent = agents[i % len(agents)]
            note = Note(
                agent_id=agent,
                owner=agent,
                readers=[agent],
                writers=[agent],
                content=text,
                content_hash=content_hash(text),
                embedding=to_bytes(vec),
                embedding_model=model,
                created_at=timezone.now(),
                index_dirty=False,
                revision=1,
            )
            tokens = tokenize(embedding_text(text))
            sparse = bm25_document_vector(tokens, k1=cfg.bm25_k1, b=cfg.bm25_b, avg_len=cfg.bm25_avg_len)
            notes.append(note)
            points.append(IndexPoint(str(note.pk), vec, sparse, payload_for(note)))
        Note.objects.bulk_create(notes, batch_size=500)
        store.upsert(access.collection_for(owners[agents[0]]), points)
    store.optimize()


def measure(queries: list[str], agent_id: str, limit: int) -> tuple[float, float, float]:
    from engine.retrieval.search import search
    from memories.models import Agent

    agent = Agent.objects.get(pk=agent_id)
    for q in queries[:10]:  # warm-up: model, shard pages, SQLite cache
        search(q, agent, limit=limit)
    timings = []
    for q in queries[10:]:
        t0 = time.perf_counter()
        search(q, agent, limit=limit)
        timings.append((time.perf_counter() - t0) * 1000)
    timings.sort()
    p95 = timings[int(0.95 * (len(timings) - 1))]
    return statistics.median(timings), p95, statistics.mean(timings)


def compare_round2(queries: list[str], agent_id: str, limit: int) -> dict[str, tuple[float, float]]:
    """p50/p95 of round 2's ranking (RRF, pools 2·k, one-link lift) and the product's, the two
    interleaved query by query with the vectors embedded beforehand: the cost of the ranking and
    its database reads alone, side by side, so the machine's drift hits both alike."""
    from bench.evaluate import round2
    from engine import runtime
    from engine.retrieval.search import RANKING, search
    from memories.models import Agent

    pipelines = {"round 2 (RRF, pools 2·k)": round2(), "product (score fusion, pools 4·k)": RANKING}
    agent = Agent.objects.get(pk=agent_id)
    vectors = runtime.embedder().encode(queries)
    timings: dict[str, list[float]] = {name: [] for name in pipelines}
    for i, (query, vector) in enumerate(zip(queries, vectors, strict=True)):
        for name, pipeline in pipelines.items():
            t0 = time.perf_counter()
            search(query, agent, limit=limit, ranking=pipeline, query_vector=vector)
            if i >= 10:  # the first ten warm up the shard pages and the SQLite cache
                timings[name].append((time.perf_counter() - t0) * 1000)
    return {name: (statistics.median(t), sorted(t)[int(0.95 * (len(t) - 1))]) for name, t in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--agents", type=int, default=1, help="spread the notes over this many Mode A agents")
    parser.add_argument("--source-turns", type=int, default=0, help="embed only this many source turns (smoke test)")
    parser.add_argument("--data-dir", default="", help="keep the populated data dir here and reuse it (profiling)")
    parser.add_argument("--profile", action="store_true", help="cProfile the measured searches; print the top")
    parser.add_argument(
        "--locomo", default=str(bench_data.data_dir() / "locomo10.json"), help="LoCoMo JSON (texts and questions)"
    )
    parser.add_argument(
        "--chinese",
        action="store_true",
        help="texts and queries from MADial-Bench zh (next to --locomo) instead of LoCoMo; use its own --data-dir",
    )
    parser.add_argument(
        "--compare-round2",
        action="store_true",
        help="also time round 2's ranking and the product's side by side (query embedding excluded)",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="amem-latency-") as tmp:
        if args.data_dir:
            Path(args.data_dir).mkdir(parents=True, exist_ok=True)
        setup_django(args.data_dir or tmp)
        import numpy as np

        from engine import runtime

        if args.chinese:
            turns, questions = chinese_corpus(Path(args.locomo).parent / "madial")
        else:
            turns, questions = corpus(Path(args.locomo))
        turns = turns[: args.source_turns] if args.source_turns else turns
        rng = np.random.default_rng(7)
        from memories.models import Note

        base = None
        if Note.objects.count() < max(args.sizes):  # a kept data dir may already hold them all
            t0 = time.perf_counter()
            base = runtime.embedder().encode(turns)
            print(f"embedded {len(turns)} source turns in {time.perf_counter() - t0:.0f} s", flush=True)
        agents = [f"agent{i}" for i in range(args.agents)]
        order = rng.permutation(len(questions))
        print(f"load average at start: {load_average()}; ONNX Runtime for queries: {onnx_in_use()}", flush=True)
        print("| notes | agents | visible to the caller | limit | p50 ms | p95 ms | mean ms | load s |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        used = 0
        for size in sorted(args.sizes):
            t0 = time.perf_counter()
            populate(size, agents, turns, base, rng)
            load_s = time.perf_counter() - t0
            picked = [questions[i] for i in order[used : used + args.queries + 10]]
            used += args.queries + 10
            if args.profile:
                import cProfile
                import pstats

                prof = cProfile.Profile()
                prof.enable()
            p50, p95, mean = measure(picked, agents[0], args.limit)
            if args.profile:
                prof.disable()
                pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
            visible = size // len(agents)
            print(
                f"| {size} | {len(agents)} | {visible} | {args.limit} | {p50:.1f} | {p95:.1f} | {mean:.1f} | {load_s:.0f} |",
                flush=True,
            )
            if args.compare_round2:
                for name, (c50, c95) in compare_round2(picked, agents[0], args.limit).items():
                    print(f"  side by side, {size} notes, {name}: p50 {c50:.1f} ms, p95 {c95:.1f} ms", flush=True)
        print(f"load average at end: {load_average()}")
        runtime.close_store()


def load_average() -> str:
    """1, 5 and 15 minute load averages: timings on the shared 2 cores mean little without them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def onnx_in_use() -> bool:
    from engine import runtime
    from engine.index.embeddings import SentenceTransformerEmbedder

    embedder = runtime.embedder()
    embedder.encode_one("load the model")
    return isinstance(embedder, SentenceTransformerEmbedder) and embedder.uses_onnx
