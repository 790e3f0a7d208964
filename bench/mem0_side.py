"""amem and mem0 side by side through mem0's own SDK: add, search and get_all latency, LoCoMo recall.

Run by hand (docs/benchmarks.md, "Side by side with mem0", has the figures):

    AMEM_BENCH_DATA=… nice .venv/bin/python -m bench mem0 [--conversations 10] [--questions 30] [--batch 20]

What it starts: a live amem (testsupport/live_server.py: gunicorn, SQLite, qdrant-edge, the
default MiniLM model, offline LLM) in a scratch folder; an OpenAI-style embedding endpoint in
this process that answers with the same MiniLM model's vectors; the fake LLM provider
(testsupport/llm_server.py); then bench/mem0_driver.py in mem0ai's own venv
(testsupport/mem0_client.py), which drives both sides through mem0ai 2.2.1: ``MemoryClient``
against amem's ``/mem0`` API, and mem0's own local ``Memory`` with its default Qdrant store.

The same corpus through both: every turn of the first --conversations LoCoMo conversations,
one memory per turn (``infer=False``: mem0 stores it as given, amem on its episodic path), the
conversation as ``user_id``, the turn's ``dia_id`` in ``metadata``; amem also gets the session
date as ``timestamp`` (mem0's local Memory has none: "Platform-only"). Then the first
--questions questions with evidence of each conversation (categories 1–4), ``top_k`` 10,
filtered to that user; recall@k = |gold ∩ dia_ids of the first k| / |gold|. Both sides run
batch by batch in turn, so the machine's load falls on both alike; times are client-side wall
times of each SDK call.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

from bench.data import Conversation, data_dir, load_locomo
from engine.index.embeddings import get_embedder
from testsupport import mem0_client
from testsupport.live_server import LiveServer
from testsupport.llm_server import FakeLLMServer

DRIVER = Path(__file__).with_name("mem0_driver.py")
KS = (1, 5, 10)
OPS = ("add", "search", "get_all")


class EmbeddingEndpoint:
    """``POST /v1/embeddings`` (OpenAI's shape) answered with amem's MiniLM vectors; a text in
    ``known`` (keyed with its runs of whitespace collapsed to one space) gets the vector given there (a benchmark store's stand-in vectors), not a new one, and
    with ``as_queries`` any other text is embedded as amem embeds a search query."""

    def __init__(self, known: dict[str, np.ndarray] | None = None, *, as_queries: bool = False) -> None:
        self.model = get_embedder()
        self.known = known if known is not None else {}
        embed = self.model.encode_query if as_queries else self.model.encode_one
        self.embedded: list[str] = []  # texts embedded here (not found in ``known``)
        self.lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                with endpoint.lock:
                    # mem0 collapses runs of spaces in what it stores: ``known`` is keyed by the collapsed text.
                    keys = [" ".join(str(t).split()) for t in texts]
                    endpoint.embedded += [str(t) for t, k in zip(texts, keys, strict=True) if k not in endpoint.known]
                    vectors = [
                        endpoint.known[k] if k in endpoint.known else embed(str(t))
                        for t, k in zip(texts, keys, strict=True)
                    ]
                as_base64 = body.get("encoding_format") == "base64"
                data = [
                    {
                        "object": "embedding",
                        "index": i,
                        "embedding": base64.b64encode(np.asarray(v, np.float32).tobytes()).decode()
                        if as_base64
                        else np.asarray(v, np.float32).tolist(),
                    }
                    for i, v in enumerate(vectors)
                ]
                answer = json.dumps({"object": "list", "data": data, "model": body.get("model", ""), "usage": {}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(answer.encode())

            def log_message(self, *args) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"


def corpus(conversations: list[Conversation], questions: int) -> list[dict]:
    return [
        {
            "name": c.name,
            "turns": [{"dia_id": t.dia_id, "text": t.text, "ts": int(t.occurred_at.timestamp())} for t in c.turns],
            "questions": [{"text": q.text, "gold": sorted(q.gold)} for q in c.questions[:questions]],
        }
        for c in conversations
    ]


def recall(found: dict[str, list[list[str]]], convs: list[dict], k: int) -> float:
    values = [
        len(set(q["gold"]) & set(got[:k])) / len(q["gold"])
        for c in convs
        for q, got in zip(c["questions"], found[c["name"]], strict=True)
    ]
    return statistics.fmean(values)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(convs: list[dict], ingest: dict, query: dict, loads: list[str], seconds: float) -> str:
    times = {side: {**ingest["times"][side], **query["times"][side]} for side in ("amem", "mem0")}
    notes = sum(len(c["turns"]) for c in convs)
    asked = sum(len(c["questions"]) for c in convs)
    lines = [
        f"{len(convs)} LoCoMo conversations, {notes:,} turns, {asked:,} questions; {seconds:.0f} s in all; "
        f"load (uptime) at start, after ingest, at end: {' | '.join(loads)}",
        "",
        "| call | amem p50 | amem p95 | mem0 p50 | mem0 p95 | mem0 ÷ amem (p50) | calls per side |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for op in OPS:
        a, m = times["amem"][op], times["mem0"][op]
        lines.append(
            f"| {op} | {quantile(a, 0.5):.1f} ms | {quantile(a, 0.95):.1f} ms | {quantile(m, 0.5):.1f} ms "
            f"| {quantile(m, 0.95):.1f} ms | {quantile(m, 0.5) / quantile(a, 0.5):.2f} | {len(a):,} |"
        )
    lines += ["", "| recall | " + " | ".join(f"R@{k}" for k in KS) + " |", "| --- |" + " ---: |" * len(KS)]
    for side in ("amem", "mem0"):
        lines.append(f"| {side} | " + " | ".join(f"{recall(query['found'][side], convs, k):.3f}" for k in KS) + " |")
    lines += [
        "",
        f"mem0's keyword leg in use: {ingest['mem0_keyword_leg']}; get_all counted "
        f"amem {sum(query['amem_listed'].values()):,}, mem0 {sum(query['mem0_listed'].values()):,} memories",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench mem0", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--locomo", type=Path, default=None, help="locomo10.json (default: $AMEM_BENCH_DATA/locomo10.json)"
    )
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--questions", type=int, default=30, help="questions per conversation")
    parser.add_argument("--batch", type=int, default=20, help="calls per side before the other side's turn")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--get-all-repeats", type=int, default=3)
    args = parser.parse_args()
    started, loads = time.monotonic(), [load()]
    convs = corpus(load_locomo(args.locomo or data_dir() / "locomo10.json")[: args.conversations], args.questions)
    with tempfile.TemporaryDirectory(prefix="amem-mem0-bench-") as scratch:
        work = Path(scratch)
        server = LiveServer(work / "amem").prepare().start()
        llm = FakeLLMServer()
        llm.start()
        try:
            embed = EmbeddingEndpoint()
            job = {
                "url": server.url,
                "key": server.key,
                "embed_url": embed.url,
                "llm_url": f"{llm.url}/v1",
                "workdir": str(work / "mem0"),
                "conversations": convs,
                "batch": args.batch,
                "top_k": args.top_k,
                "get_all_repeats": args.get_all_repeats,
            }
            (work / "mem0").mkdir()
            ingest = mem0_client.run(DRIVER, {**job, "phase": "ingest"}, work / "home", timeout=6 * 3600)
            server.wait_indexed(timeout=600)  # amem indexes in the background; mem0 indexed as it wrote
            loads.append(load())
            query = mem0_client.run(DRIVER, {**job, "phase": "query"}, work / "home", timeout=6 * 3600)
            embed.http.shutdown()
        finally:
            llm.stop()
            server.drop()
    loads.append(load())
    print(report(convs, ingest, query, loads, time.monotonic() - started))
    return 0
