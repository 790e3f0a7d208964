"""In-process search latency at scale: p50/p95 of engine.retrieval.search.search, query embedding included.

usage: .venv/bin/python -m bench search [--linked] [--chinese] [--sizes 10000 100000] [--queries 200]

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

``--linked`` builds a store like a user's instead: the notes are written through the
conversation path (engine/write/conversation.py: add_conversation), copies of the source
sessions (LoCoMo's sessions; MADial's dialogues, and each memory as a session of one), so every
note has its session, its sources, the previous turn as context, and links both ways to its
adjacent turns, as a user's conversation leaves them; only the embedding is the noisy stand-in
above (ConversationStore). The search target is measured on this store.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


@dataclass(frozen=True)
class Said:
    """One source turn of a conversation store: what was said, and where and when."""

    text: str
    source: str
    occurred_at: dt.datetime | None = None


def locomo_sessions(path: Path) -> list[list[Said]]:
    """LoCoMo's sessions (every conversation's), each its turns in order."""
    from bench.data import load_locomo

    sessions: dict[tuple[str, int], list[Said]] = {}
    for conv in load_locomo(path):
        for t in conv.turns:
            sessions.setdefault((conv.name, t.session), []).append(Said(t.text, t.dia_id, t.occurred_at))
    return list(sessions.values())


def chinese_sessions(folder: Path) -> list[list[Said]]:
    """MADial-Bench zh: each dialogue a session of its lines, each memory a session of one."""
    from bench.data import _jsonl, load_madial

    memories = [[Said(m.text, m.id, m.occurred_at)] for _, ms, _ in load_madial(folder, "zh") for m in ms]
    dialogues = [
        [Said(line.strip(), f"d{d['id']}:{i}") for i, line in enumerate(d["dialogue"]) if line.strip()]
        for d in _jsonl(folder / "MADial-Bench-zh-dialogue.json")
    ]
    return memories + [d for d in dialogues if d]


class ConversationStore:
    """Fills a store through the product's conversation path (engine/write/conversation.py:
    add_conversation), copies of the source sessions over and over, with one shortcut: the
    embedder returns each turn's real vector (its text with its context, embedded once per
    source turn) plus Gaussian noise instead of embedding it again. Everything else is the
    product's: the quality gate's skipped turns, each note's context and session, its sources,
    importance, the offline facts, the create events, the links both ways between adjacent
    turns, and the indexer's points after the commit."""

    def __init__(self, sessions: list[list[Said]], rng) -> None:
        from engine import runtime
        from engine.text import embedding_text
        from engine.write.conversation import Turn, contexts

        self.sessions = sessions
        self.rng = rng
        keys = dict.fromkeys(
            embedding_text(t.text.strip(), context=ctx)
            for s in sessions
            for t, ctx in zip(s, contexts([Turn(x.text, session="s") for x in s]), strict=True)
        )
        t0 = time.perf_counter()
        vectors = runtime.embedder().encode(list(keys))
        print(
            f"embedded {len(keys)} source turns (with their contexts) in {time.perf_counter() - t0:.0f} s", flush=True
        )
        self.base = dict(zip(keys, vectors, strict=True))
        self.copy = 0
        self.next_session = 0

    def _noisy(self, texts: list[str], show_progress: bool = False):
        import numpy as np

        turns = [t for t in texts if t in self.base]
        # Anything else (the importance rater's anchors) is embedded for real.
        other = [t for t in texts if t not in self.base]
        found = dict(zip(other, self._real(other), strict=True)) if other else {}
        if turns:
            base = np.stack([self.base[t] for t in turns])
            # The bare store's noise: the same cluster structure around each source turn.
            vectors = base + self.rng.normal(0, 1.0 / np.sqrt(base.shape[1]), base.shape)
            found.update(zip(turns, vectors / np.linalg.norm(vectors, axis=1, keepdims=True), strict=True))
        return np.stack([found[t] for t in texts]).astype(np.float32)

    def fill(self, n: int, agent_id: str, per_call: int = 2000, optimize: bool = True) -> None:
        """Conversations written until the store holds ``n`` notes (then the index optimized, unless not)."""
        from engine import runtime
        from engine.errors import QualityRejected
        from engine.index.embeddings import SentenceTransformerEmbedder
        from engine.write.conversation import Turn, add_conversation
        from memories.models import Agent, Note

        agent = Agent.objects.get_or_create(id=agent_id)[0]
        embedder = runtime.embedder()
        if not isinstance(embedder, SentenceTransformerEmbedder):
            raise SystemExit("--linked stands in for a sentence-transformers model's encoder (the default MiniLM)")
        self._real = embedder._encode
        embedder._encode = self._noisy  # type: ignore[method-assign]
        try:
            while (have := Note.objects.count()) < n:
                turns: list[Turn] = []
                while len(turns) < min(per_call, n - have):
                    label = f"{self.copy}/{self.next_session}"
                    for said in self.sessions[self.next_session]:
                        source = f"{said.source}#{self.copy}"
                        turns.append(Turn(said.text, session=label, source=source, occurred_at=said.occurred_at))
                    self.next_session += 1
                    if self.next_session == len(self.sessions):
                        self.copy, self.next_session = self.copy + 1, 0
                # One copy's vectors must not be served to the next from the embedder's cache.
                embedder.cache.clear()
                try:  # the quality gate skips short turns: the loop writes more
                    add_conversation(agent, turns[: n - have], actor="bench")
                except QualityRejected:  # a last handful of turns, every one too short
                    continue
        finally:
            del embedder._encode
            embedder.cache.clear()
        if optimize:
            runtime.store().optimize()


def padded(lo: int, hi: int, turns: list[str], base_vectors, rng) -> list[tuple[str, Any]]:
    """Rows ``lo``…``hi - 1`` of a bare store: a source turn with its serial number, and the turn's
    vector plus Gaussian noise, re-normalised (drawn from ``rng`` in order, so a run is repeatable)."""
    import numpy as np

    rows = []
    for i in range(lo, hi):
        src = i % len(turns)
        vec = base_vectors[src] + rng.normal(0, 0.25 / np.sqrt(base_vectors.shape[1]) * 4, base_vectors.shape[1])
        rows.append((f"{turns[src]} (#{i})", (vec / np.linalg.norm(vec)).astype(np.float32)))
    return rows


def populate(n: int, agents: list[str], turns: list[str], base_vectors, rng, also=None) -> None:
    """n notes spread round-robin over ``agents`` (Mode A, one shared collection), indexed;
    ``also`` (if given) receives each batch of (text, vector) rows as written."""
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
        rows = padded(lo, min(n, lo + batch), turns, base_vectors, rng)
        for i, (text, vec) in enumerate(rows, start=lo):
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
        if also is not None:
            also(rows)
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
        "--linked",
        action="store_true",
        help="write the notes through the conversation path (contexts, sessions, adjacent links, facts): "
        "a store like a user's; without it, bare rows and points (no links, no contexts)",
    )
    parser.add_argument(
        "--as-written",
        action="store_true",
        help="with --linked: time the searches on the index as the writes left it, then after the server's "
        "drainer optimized it (engine/index_sync/outbox.py), side by side",
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

        folder = Path(args.locomo).parent / "madial"
        if args.chinese:
            turns, questions = chinese_corpus(folder)
        else:
            turns, questions = corpus(Path(args.locomo))
        turns = turns[: args.source_turns] if args.source_turns else turns
        rng = np.random.default_rng(7)
        from memories.models import Note

        base = None
        conversations = None
        if Note.objects.count() >= max(args.sizes):  # a kept data dir may already hold them all
            pass
        elif args.linked:
            if args.agents != 1:
                parser.error("--linked writes one agent's conversations")
            sessions = chinese_sessions(folder) if args.chinese else locomo_sessions(Path(args.locomo))
            if args.source_turns:
                sessions = [s for i, s in enumerate(sessions) if sum(map(len, sessions[:i])) < args.source_turns]
            conversations = ConversationStore(sessions, rng)
        else:
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
            if conversations is not None:
                conversations.fill(size, agents[0], optimize=not args.as_written)
            elif base is not None:
                populate(size, agents, turns, base, rng)
            load_s = time.perf_counter() - t0
            picked = [questions[i] for i in order[used : used + args.queries + 10]]
            used += args.queries + 10
            if args.profile:
                import cProfile
                import pstats

                prof = cProfile.Profile()
                prof.enable()
            if args.as_written:
                p50, p95, mean = measure(picked, agents[0], args.limit)
                print(f"| {size} as written | | | {args.limit} | {p50:.1f} | {p95:.1f} | {mean:.1f} | {load_s:.0f} |")
                print(f"  the drainer's optimize: {optimize_as_served():.1f} s; load {load_average()}", flush=True)
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


def optimize_as_served() -> float:
    """Seconds the server's drainer takes to optimize the index (its first pass after start-up)."""
    from engine.index_sync import outbox

    t0 = time.perf_counter()
    outbox.Drainer().optimize_when_due()
    return time.perf_counter() - t0


def load_average() -> str:
    """1, 5 and 15 minute load averages: timings on the shared 2 cores mean little without them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def onnx_in_use() -> bool:
    from engine import runtime
    from engine.index.embeddings import SentenceTransformerEmbedder

    embedder = runtime.embedder()
    embedder.encode_one("load the model")
    return isinstance(embedder, SentenceTransformerEmbedder) and embedder.uses_onnx
