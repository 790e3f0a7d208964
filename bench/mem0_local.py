"""amem's search and mem0's, each in its own process, on one store of N notes: latency side by side.

Run by hand (docs/benchmarks.md, "Search latency", has the figures):

    AMEM_BENCH_DATA=… .venv/bin/python -m bench mem0-local [--notes 10000] [--queries 150] [--batch 20]

The store is bench/search.py's bare one: LoCoMo turns with a serial number, each vector the real
MiniLM vector of its source turn plus Gaussian noise. amem gets it as rows and index points (the
index optimized, as ``amem_import`` leaves it) and is searched in this process
(``engine.retrieval.search.search``, limit 10, the query embedded inside the call as in the
product). mem0ai 2.2.1's own local ``Memory`` (bench/mem0_local_driver.py, in mem0's own venv)
gets the same texts through ``add(infer=False)`` and the same vectors from an embedding endpoint
in this process, and is searched in its own process (``top_k`` 10, ``threshold`` 0, filtered to
the one user): mem0's semantic search, its keyword leg off without extras (as in bench/mem0_side.py).
mem0's query is embedded by the endpoint with amem's query encoder, one HTTP round trip away (the
only cost mem0 pays here that amem does not: about 1 ms on this machine). Both sides take
``--batch`` queries in turn, after ten warm-up queries each, so the machine's load falls on both alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.mem0_side import EmbeddingEndpoint, quantile
from bench.search import corpus, load_average, populate, setup_django
from testsupport import mem0_client
from testsupport.llm_server import FakeLLMServer

DRIVER = Path(__file__).with_name("mem0_local_driver.py")
USER = "bench"
WARM_UP = 10


class Mem0Process:
    """bench/mem0_local_driver.py in mem0's venv, one command and one answer at a time."""

    def __init__(self, workdir: Path, embed_url: str, llm_url: str) -> None:
        workdir.mkdir(parents=True)
        self.process = subprocess.Popen(
            [str(mem0_client.python()), str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=mem0_client.client_env(workdir / "home"),
        )
        self.ask({"workdir": str(workdir), "embed_url": embed_url, "llm_url": llm_url})

    def ask(self, command: dict) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith("ANSWER "):
                return json.loads(line[len("ANSWER ") :])
        raise RuntimeError(f"mem0's driver stopped (exit {self.process.wait()}); its stderr is above")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def amem_search(agent, queries: list[str], limit: int) -> tuple[list[float], list[list[str]]]:
    from engine.retrieval.search import search

    ms, found = [], []
    for query in queries:
        start = time.perf_counter()
        results = search(query, agent, limit=limit)
        ms.append((time.perf_counter() - start) * 1000)
        found.append([r.note.content for r in results if r.via == "match"])
    return ms, found


def main() -> int:
    from bench.data import data_dir

    parser = argparse.ArgumentParser(prog="python -m bench mem0-local", description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--batch", type=int, default=20, help="queries per side before the other side's turn")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--locomo", type=Path, default=None, help="default: $AMEM_BENCH_DATA/locomo10.json")
    args = parser.parse_args()
    started, loads = time.monotonic(), [load_average()]
    with tempfile.TemporaryDirectory(prefix="amem-mem0-local-") as scratch:
        work = Path(scratch)
        setup_django(str(work / "amem"))
        import numpy as np

        from engine import runtime
        from memories.models import Agent

        turns, questions = corpus(args.locomo or data_dir() / "locomo10.json")
        base = runtime.embedder().encode(turns)
        rng = np.random.default_rng(7)
        embed = EmbeddingEndpoint({}, as_queries=True)
        llm = FakeLLMServer()
        llm.start()
        mem0 = Mem0Process(work / "mem0", embed.url, f"{llm.url}/v1")
        try:
            t0 = time.perf_counter()

            def to_mem0(rows) -> None:
                embed.known.update((" ".join(text.split()), vector) for text, vector in rows)
                mem0.ask({"op": "add", "user": USER, "texts": [text for text, _ in rows]})
                print(f"  written to both: {len(embed.known):,} notes, {time.perf_counter() - t0:.0f} s", flush=True)

            populate(args.notes, [USER], turns, base, rng, also=to_mem0)
            if embed.embedded:
                raise SystemExit(
                    f"mem0 was given {len(embed.embedded)} vectors amem's store does not hold (not one store), "
                    f"such as {embed.embedded[:3]}"
                )
            loads.append(load_average())
            agent = Agent.objects.get(pk=USER)
            order = rng.permutation(len(questions))
            picked = [questions[i] for i in order[: WARM_UP + args.queries]]
            amem_search(agent, picked[:WARM_UP], args.limit)
            mem0.ask({"op": "search", "user": USER, "queries": picked[:WARM_UP], "top_k": args.limit})
            times: dict[str, list[float]] = {"amem": [], "mem0": []}
            shared: list[float] = []
            for lo in range(WARM_UP, len(picked), args.batch):
                batch = picked[lo : lo + args.batch]
                ms, ours = amem_search(agent, batch, args.limit)
                times["amem"] += ms
                theirs = mem0.ask({"op": "search", "user": USER, "queries": batch, "top_k": args.limit})
                times["mem0"] += theirs["ms"]
                shared += [len(set(a) & set(b)) / args.limit for a, b in zip(ours, theirs["found"], strict=True)]
        finally:
            mem0.close()
            llm.stop()
            embed.http.shutdown()
            runtime.close_store()
    loads.append(load_average())
    a50, m50 = quantile(times["amem"], 0.5), quantile(times["mem0"], 0.5)
    print(
        f"\n{args.notes:,} notes, {len(times['amem'])} LoCoMo questions a side, limit {args.limit}, "
        f"{time.monotonic() - started:.0f} s; load (uptime) at start, after the writes, at end: {' | '.join(loads)}\n"
    )
    print("| search | p50 ms | p95 ms | mean ms | × amem (p50) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for side, label in (("amem", "amem, default search"), ("mem0", "mem0 2.2.1 local `Memory`, semantic")):
        values = times[side]
        print(
            f"| {label} | {quantile(values, 0.5):.1f} | {quantile(values, 0.95):.1f} | "
            f"{statistics.fmean(values):.1f} | {quantile(values, 0.5) / a50:.1f}× |"
        )
    print(
        f"\nmem0 ÷ amem at p50: {m50 / a50:.1f}×; matches both returned: {statistics.fmean(shared):.2f} of {args.limit}"
    )
    return 0
