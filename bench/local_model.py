"""LoCoMo replay through POST /turns: a real local model (LLM mode) against the offline rules.

Run by hand, never in CI (a 135M model on a shared CPU takes tens of seconds per turn):

    nice .venv/bin/python -m bench local-model --turns 200 --until 10:45

The first ``--turns`` turns of the first LoCoMo conversation (``locomo10.json`` in
$AMEM_BENCH_DATA, or ``--locomo``) are sent one by one to ``POST /api/v1/turns`` through
Django's test client (the real view, auth, validation and error handling), each as the
latest exchange: the previous turn as the assistant's message, this one as the user's, its
``dia_id`` as the source. Two modes, one agent each, in one
scratch SQLite database and embedded index:

* ``llm``     — provider ``openai`` at the local model server (tools/local_llm, started here
  unless ``--base-url`` names one), the model's JSON schema sent with every call.
* ``offline`` — provider ``none``: the rule-based stand-ins.

LLM mode runs first; with ``--until HH:MM`` (UTC) it stops sending turns at that time, and the
offline mode then replays the same number of turns. Reported per mode: turns sent, answered
2xx, 5xx, notes written (active notes of the agent), model calls per role with the share
parsed (outcome ok) and fallen back (parse_error / provider_error: answered by the offline
rules), seconds per turn (p50), tokens per turn, and the evidence recall@k of the resulting
store on the conversation's questions whose evidence lies in the replayed turns.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path

from bench import data as bench_data
from bench.data import load_locomo
from bench.harness import scratch_django

FELL_BACK = ("parse_error", "provider_error")
KS = (5, 10)


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def configure(mode: str, base_url: str, model: str, timeout: str) -> None:
    from django.conf import settings

    from engine import runtime

    if mode == "offline":
        settings.AMEM_LLM_ENV = {"AMEM_LLM_PROVIDER": "none"}
    else:
        settings.AMEM_LLM_ENV = {
            "AMEM_LLM_PROVIDER": "openai",
            "AMEM_LLM_BASE_URL": base_url,
            "AMEM_LLM_MODEL": model,
            "AMEM_LLM_TIMEOUT": timeout,
            "AMEM_LLM_MAX_RETRIES": "0",
        }
    runtime.reset_llm()


def replay(mode: str, turns, deadline: dt.datetime | None, log_path: Path) -> dict:
    from django.test import Client

    from memories.models import Agent, ApiKey

    agent = Agent.objects.get_or_create(pk=f"bench-{mode}")[0]
    key = ApiKey.issue(agent)[1]
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {key}")
    statuses: Counter[int] = Counter()
    seconds: list[float] = []
    previous = None
    sent = 0
    with log_path.open("w") as log:
        for turn in turns:
            if deadline is not None and dt.datetime.now(dt.UTC) >= deadline:
                break
            messages = []
            if previous is not None and previous.session == turn.session:
                messages.append({"role": "assistant", "content": previous.text})
            messages.append({"role": "user", "content": turn.text})
            started = time.perf_counter()
            response = client.post(
                "/api/v1/turns",
                data=json.dumps({"messages": messages, "sources": [turn.dia_id]}),
                content_type="application/json",
            )
            took = time.perf_counter() - started
            sent += 1
            statuses[response.status_code] += 1
            seconds.append(took)
            body = response.json() if response.headers.get("Content-Type", "").startswith("application/json") else {}
            row = {"dia_id": turn.dia_id, "status": response.status_code, "seconds": round(took, 2), "body": body}
            log.write(json.dumps(row) + "\n")
            log.flush()
            print(f"[{mode}] {sent:4d} {turn.dia_id:>7} {response.status_code} {took:6.1f}s load {load_average()}")
            previous = turn
    return {"agent": agent, "sent": sent, "statuses": statuses, "seconds": seconds}


def summarise(mode: str, run: dict, questions) -> dict:
    from engine.retrieval.search import search
    from memories.models import LlmCall, Note

    agent = run["agent"]
    calls = LlmCall.objects.filter(agent_id=agent.pk)
    roles: dict[str, Counter[str]] = defaultdict(Counter)
    tokens = 0
    for role, outcome, tokens_in, tokens_out in calls.values_list("role", "outcome", "tokens_in", "tokens_out"):
        roles[role][outcome] += 1
        tokens += tokens_in + tokens_out
    notes = Note.objects.filter(agent_id=agent.pk, is_active=True)
    replayed = set()
    for row in Path(run["log"]).read_text().splitlines():
        replayed.add(json.loads(row)["dia_id"])
    asked = [q for q in questions if q.gold <= replayed]
    recall: dict[int, float] = {}
    for k in KS:
        values = []
        for question in asked:
            found = search(question.text, agent, limit=k, heat=False)
            covered = {s for r in found for s in r.note.sources}
            values.append(len(question.gold & covered) / len(question.gold))
        recall[k] = statistics.mean(values) if values else float("nan")
    sent = run["sent"]
    return {
        "mode": mode,
        "sent": sent,
        "ok": sum(n for status, n in run["statuses"].items() if 200 <= status < 300),
        "5xx": sum(n for status, n in run["statuses"].items() if status >= 500),
        "statuses": dict(run["statuses"]),
        "notes": notes.count(),
        "roles": {role: dict(c) for role, c in sorted(roles.items())},
        "calls": sum(sum(c.values()) for c in roles.values()),
        "p50": statistics.median(run["seconds"]) if run["seconds"] else float("nan"),
        "mean": statistics.mean(run["seconds"]) if run["seconds"] else float("nan"),
        "tokens_per_turn": tokens / sent if sent else 0.0,
        "questions": len(asked),
        "recall": recall,
    }


def role_table(result: dict) -> list[str]:
    lines = ["| role | calls | parsed (ok) | fell back (parse_error) | fell back (provider_error) |"]
    lines.append("| --- | ---: | ---: | ---: | ---: |")
    for role, outcomes in result["roles"].items():
        total = sum(outcomes.values())
        ok, parse, provider = (outcomes.get(o, 0) for o in ("ok", "parse_error", "provider_error"))
        lines.append(
            f"| {role} | {total} | {ok} ({ok / total:.0%}) | {parse} ({parse / total:.0%}) | "
            f"{provider} ({provider / total:.0%}) |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--locomo", default="", help="LoCoMo file (default: locomo10.json in $AMEM_BENCH_DATA)")
    parser.add_argument("--until", default="", help="HH:MM UTC: LLM mode sends no turn after this time")
    parser.add_argument("--base-url", default="", help="an OpenAI-compatible /v1 already running")
    parser.add_argument("--model", default="smollm2-135m", help="the tools.local_llm model to start")
    parser.add_argument("--timeout", default="120", help="AMEM_LLM_TIMEOUT for LLM mode (seconds)")
    parser.add_argument("--modes", nargs="+", default=["llm", "offline"], choices=["llm", "offline"])
    parser.add_argument("--data-dir", default="")
    parser.add_argument("--out", default="", help="folder for the per-turn logs and the summary JSON")
    args = parser.parse_args()

    data_dir = scratch_django(args.data_dir, "amem-localmodel-")
    out = Path(args.out) if args.out else data_dir
    out.mkdir(parents=True, exist_ok=True)
    import logging

    from engine import runtime

    logging.getLogger("engine").setLevel(logging.ERROR)
    runtime.embedder().encode(["warm-up"])
    conversation = load_locomo(Path(args.locomo) if args.locomo else bench_data.data_dir() / "locomo10.json")[0]
    turns = conversation.turns[: args.turns]
    deadline = None
    if args.until:
        hour, minute = (int(x) for x in args.until.split(":"))
        deadline = dt.datetime.now(dt.UTC).replace(hour=hour, minute=minute, second=0, microsecond=0)
    print(f"data dir {data_dir}; {len(turns)} turns of {conversation.name}; load {load_average()}", flush=True)

    server = None
    base_url = args.base_url
    if "llm" in args.modes and not base_url:
        from tools.local_llm.server import LocalModelServer

        server = LocalModelServer(args.model).start()
        base_url = server.base_url
        print(f"local model server {base_url} ({args.model})", flush=True)
    results: list[dict] = []
    try:
        for mode in args.modes:
            configure(mode, base_url, args.model, args.timeout)
            limit = results[0]["sent"] if results else len(turns)
            run = replay(mode, turns[:limit], deadline if mode == "llm" else None, out / f"{mode}.jsonl")
            run["log"] = out / f"{mode}.jsonl"
            results.append(summarise(mode, run, conversation.questions))
            print(json.dumps(results[-1], default=str), flush=True)
    finally:
        if server is not None:
            server.stop()
    (out / "summary.json").write_text(json.dumps(results, indent=2, default=str))
    print(f"\nload average at end: {load_average()}")
    print(
        "| mode | turns sent | answered 2xx | 5xx | notes written | model calls | p50 s/turn | tokens/turn | "
        + " | ".join(f"recall@{k}" for k in KS)
        + " |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | " + " | ".join("---:" for _ in KS) + " |")
    for r in results:
        print(
            f"| {r['mode']} | {r['sent']} | {r['ok']} | {r['5xx']} | {r['notes']} | {r['calls']} | {r['p50']:.1f} | "
            f"{r['tokens_per_turn']:.0f} | " + " | ".join(f"{r['recall'][k]:.3f}" for k in KS) + " |"
        )
    for r in results:
        if r["mode"] == "llm":
            print("\n" + "\n".join(role_table(r)))
    runtime.close_store()


if __name__ == "__main__":
    main()
