"""Write-pipeline benchmark: add_memory throughput, latency, LLM calls and tokens per write.

Run by hand, never in CI:

    .venv/bin/python -m bench write                   # first LoCoMo conversation, offline and fake provider
    .venv/bin/python -m bench write --turns 100       # quicker

Every turn of the first LoCoMo conversation (``$AMEM_BENCH_DATA/locomo10.json``,
or ``--locomo``) is written with ``add_memory`` as ``<speaker>: <text>``, with
its ``dia_id`` as source and its session time as ``occurred_at``, into a
scratch SQLite database and embedded Qdrant shard. Two modes, one agent each:

* ``offline`` — provider ``none``: the rule-based stand-ins; no model calls.
* ``fake``   — the OpenAI wire format against the fake provider on 127.0.0.1
  (testsupport/llm_server.py), answering every role with a plausible reply:
  construct fields, the first two offered link candidates, one neighbour update,
  a merge keeping note A. The SDK round trip is real; the model's own latency
  is not (add it per call for a real provider).

Calls per write are the LlmCall rows (provider calls; offline rule answers are
counted separately). Tokens are approximated as characters / 4 of prompt plus
reply, as the task asks, and also reported as counted by the fake's usage fields.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import statistics
import threading
import time
from collections import Counter
from pathlib import Path

from bench import data as bench_data
from bench.harness import scratch_django
from testsupport.llm_server import FakeLLMServer, RecordedRequest, Scripted

_IDS = re.compile(r"\[([0-9a-f-]{36})\]")
_BLOCK = re.compile(r"<<<\n(.*?)\n>>>", re.S)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")


class ReplyingServer(FakeLLMServer):
    """The fake provider, answering each role from the prompt it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()
        self.chars = 0  # prompt + reply characters, for the chars/4 estimate

    def _record(self, request: RecordedRequest) -> None:
        super()._record(request)
        self._local.request = request  # the handler calls _next right after, on the same thread

    def _next(self, role: str | None) -> Scripted:
        request: RecordedRequest = self._local.request
        text = json.dumps(self._answer(role or "", request.prompt))
        self.chars += len(request.prompt) + len(text)
        return Scripted(text=text, tokens_in=len(request.prompt) // 4, tokens_out=len(text) // 4)

    @staticmethod
    def _answer(role: str, prompt: str) -> object:
        blocks = _BLOCK.findall(prompt)
        subject = blocks[0] if blocks else ""
        words = list(dict.fromkeys(w for w in _WORD.findall(subject)))
        ids = list(dict.fromkeys(_IDS.findall(prompt)))
        if role == "construct":
            return {
                "keywords": words[:5] or ["conversation"],
                "tags": [w.lower() for w in words[:2]] or ["chat"],
                "context": subject.split(".")[0][:160],
                "category": "Personal",
                "note_type": "memory",
                "topics": [],
                "confidence": "medium",
            }
        if role == "link":
            return {"links": ids[:2]}
        if role == "evolve":
            updates = [{"id": ids[0], "context": "Refined by a related later message.", "tags": ["chat", "followup"]}]
            return {"updates": updates if ids else [], "suggested_connections": ids[:1]}
        if role == "should_merge":
            return {"should_merge": True, "merged": subject}
        return {}


def turns(path: Path, limit: int | None) -> list[tuple[str, str, dt.datetime]]:
    sample = json.loads(path.read_text())[0]["conversation"]
    rows = []
    session = 1
    while f"session_{session}" in sample:
        when = dt.datetime.strptime(sample[f"session_{session}_date_time"], "%I:%M %p on %d %B, %Y").replace(
            tzinfo=dt.UTC
        )
        for turn in sample[f"session_{session}"]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares {turn['blip_caption']}]"
            rows.append((turn["dia_id"], text, when))
        session += 1
    return rows[:limit] if limit else rows


def load_average() -> str:
    """1, 5 and 15 minute load averages: timings on the shared 2 cores mean little without them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_mode(mode: str, rows, server: ReplyingServer | None) -> dict:
    from django.conf import settings

    from engine import runtime
    from engine.errors import QualityRejected
    from engine.write.pipeline import add_memory
    from memories.models import Agent, LlmCall

    if server is None:
        settings.AMEM_LLM_ENV = {"AMEM_LLM_PROVIDER": "none"}
    else:
        settings.AMEM_LLM_ENV = {
            "AMEM_LLM_PROVIDER": "openai",
            "AMEM_LLM_BASE_URL": server.openai_base_url,
            "AMEM_LLM_API_KEY": "bench",
            "AMEM_LLM_MODEL": "fake-fast",
            "AMEM_LLM_MAX_RETRIES": "0",
        }
    runtime.reset_llm()
    agent = Agent.objects.get_or_create(pk=f"bench-{mode}")[0]
    outcomes: Counter[str] = Counter()
    latencies: list[float] = []
    started = time.perf_counter()
    for dia_id, text, when in rows:
        t = time.perf_counter()
        try:
            outcomes[add_memory(text, agent, sources=[dia_id], occurred_at=when, actor="bench").outcome] += 1
        except QualityRejected:
            outcomes["rejected"] += 1
        latencies.append((time.perf_counter() - t) * 1000)
    elapsed = time.perf_counter() - started
    calls = LlmCall.objects.filter(agent_id=agent.pk)
    by_role = Counter(calls.values_list("role", flat=True))
    provider_calls = calls.exclude(outcome="offline").count()
    usage = sum(c.tokens_in + c.tokens_out for c in calls.exclude(outcome="offline"))
    writes = len(rows)
    return {
        "mode": mode,
        "writes": writes,
        "rate": writes / elapsed,
        "p50": statistics.median(latencies),
        "p95": percentile(latencies, 0.95),
        "calls": provider_calls / writes,
        "rule_calls": calls.filter(outcome="offline").count() / writes,
        "tokens": (server.chars / 4 / writes) if server else 0.0,
        "usage": usage / writes,
        "roles": dict(by_role),
        "outcomes": dict(outcomes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=0, help="only the first N turns (default: all)")
    parser.add_argument("--locomo", default=str(bench_data.data_dir() / "locomo10.json"))
    parser.add_argument("--modes", nargs="+", default=["offline", "fake"], choices=["offline", "fake"])
    parser.add_argument("--data-dir", default="")
    parser.add_argument("--profile", default="", help="write a cProfile of the timed writes to this file")
    args = parser.parse_args()

    data_dir = scratch_django(args.data_dir, "amem-write-")
    import logging

    from engine import runtime

    logging.getLogger("engine").setLevel(logging.ERROR)
    runtime.embedder().encode(["warm-up"])
    rows = turns(Path(args.locomo), args.turns or None)
    print(f"data dir: {data_dir}; {len(rows)} turns of the first LoCoMo conversation")
    print(f"load average at start: {load_average()}\n", flush=True)
    profile = None
    if args.profile:
        import cProfile

        profile = cProfile.Profile()
    results = []
    for mode in args.modes:
        if profile is not None:
            profile.enable()
        if mode == "fake":
            with ReplyingServer() as server:
                results.append(run_mode(mode, rows, server))
        else:
            results.append(run_mode(mode, rows, None))
        if profile is not None:
            profile.disable()
    if profile is not None:
        profile.dump_stats(args.profile)
    print("| mode | writes | writes/s | p50 ms | p95 ms | LLM calls/write | ~tokens/write (chars/4) | outcomes |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in results:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items()))
        print(
            f"| {r['mode']} | {r['writes']} | {r['rate']:.1f} | {r['p50']:.0f} | {r['p95']:.0f} | "
            f"{r['calls']:.2f} | {r['tokens']:.0f} | {outcomes} |"
        )
    for r in results:
        print(f"\n{r['mode']}: calls by role {r['roles']}; rule answers/write {r['rule_calls']:.2f}")
    print(f"\nload average at end: {load_average()}")
    runtime.close_store()
