"""Replay the curation evaluation's labelled sets through the product and score its queues.

    .venv/bin/python -m bench curation                      # all three parts, offline
    .venv/bin/python -m bench curation --parts pairs,notes  # skip the 2,000-note scale row
    .venv/bin/python -m bench curation --split held     # only the held-out rows
    .venv/bin/python -m bench curation --mode fake-errors  # LLM mode, every model call fails

What runs is the product's own code on a scratch SQLite database and embedded index:

* **pairs** (bench/curation/sets/pairs.jsonl): each pair gets an agent of its own; text A is
  written with ``add_memory`` (the full write path: quality gate, L1/L2 dedup, the
  contradiction check, construct, link, facts), text B a day later; then the nightly jobs
  run for that agent (pending merges, consolidation, contradiction sweep, quality scan).
  A pair *opened a conflict* when a ConflictPair joins its two notes; it was *merged* when B
  was folded into A at write (or found a duplicate) or a job merged one into the other; it
  *waits for a person* when a note is still pending a merge decision.
* **notes** (sets/notes.jsonl): each note written alone by its own agent, then the quality
  scan; a note is *flagged* when the write refused it or the scan flagged it (any reason but
  ``pending_conflict``).
* **scale**: 2,000 LoCoMo observations (sets/locomo_observations.jsonl) written through the
  JSON API (POST /api/v1/memories) by one agent, with their session dates, then the nightly
  jobs: open conflicts per 200 notes, merges, pending merges, low-quality flags.

``--mode fake-errors`` runs the same in LLM mode against the fake provider
(testsupport/llm_server.py) answering every call with HTTP 500: each judgment falls back to
the offline rules, and the jobs leave alone what a failed call could not decide.

Scores: precision and recall per queue and per rule (a conflict's rule is the head of its
reason), over all rows and separately over the ``tune`` and ``held`` splits (held-out
families were never looked at while tuning the rules). ``--json FILE`` keeps every number.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from testsupport.llm_server import FakeLLMServer, Scripted

SETS = Path(__file__).resolve().parent / "sets"
T0 = dt.datetime(2024, 1, 1, 9, 0, tzinfo=dt.UTC)
NIGHTLY = ("pending_merge", "consolidation", "contradiction_sweep", "quality_scan")
MERGE_OK = ("duplicate", "paraphrase")
LOW = ("vague", "gibberish")


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (SETS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def setup(mode: str, data_dir: str) -> Path:
    """Django on a scratch database, offline (provider ``none``); ``fake-errors`` is set up later."""
    os.environ.setdefault("AMEM_API_RATE", "100000/m")
    os.environ["AMEM_LLM_PROVIDER"] = "none"
    from bench.harness import scratch_django

    return scratch_django(data_dir, "amem-curation-")


def failing_provider() -> FakeLLMServer:
    """LLM mode against the fake provider answering every call with HTTP 500 (an outage).

    Every judgment then falls back to the offline rules (engine/llm/client.py), and the jobs
    must not act on a fallback (engine/maintenance/runner.py): the run shows what a reviewer
    gets while the provider is down. The fake holds no recorded judgments of these pairs, so
    a run against its scripted replies would score the fake, not a model.
    """
    from django.conf import settings

    from engine import runtime

    server = _Failing().start()
    settings.AMEM_LLM_ENV = {
        "AMEM_LLM_PROVIDER": "openai",
        "AMEM_LLM_BASE_URL": server.openai_base_url,
        "AMEM_LLM_API_KEY": "bench",
        "AMEM_LLM_MAX_RETRIES": "0",
    }
    runtime.reset_llm()
    return server


class _Failing(FakeLLMServer):
    def _next(self, role: str | None) -> Scripted:
        return Scripted(status=500)


def llm_outcomes() -> dict:
    from django.db.models import Count

    from memories.models import LlmCall

    rows = LlmCall.objects.values("outcome").annotate(n=Count("id"))
    return {row["outcome"]: row["n"] for row in rows}


@dataclass
class PairResult:
    row: dict
    outcome_a: str = ""
    outcome_b: str = ""
    conflict: bool = False
    rule: str = ""
    auto_merged: bool = False
    waiting: bool = False


@dataclass
class Tally:
    """Counts for one precision/recall figure."""

    hits: int = 0  # flagged and right
    flagged: int = 0
    positives: int = 0

    @property
    def precision(self) -> float | None:
        return self.hits / self.flagged if self.flagged else None

    @property
    def recall(self) -> float | None:
        return self.hits / self.positives if self.positives else None

    def as_dict(self) -> dict:
        return {
            "hits": self.hits,
            "flagged": self.flagged,
            "positives": self.positives,
            "precision": self.precision,
            "recall": self.recall,
        }


_OLD_RULES = (
    ("different numbers or dates", "number"),
    ("one text negates", "negation"),
    ("the new text says something changed", "change"),
    ("the texts disagree on a change", "change"),
)


def rule_of(reason: str) -> str:
    """The rule that opened a conflict: the head of its reason ("number: 7 / 9" → number)."""
    text = re.sub(r"^\[write\]\s*|^offline:\s*", "", reason or "").strip()
    for phrase, name in _OLD_RULES:
        if text.startswith(phrase):
            return name
    return text.split(":", 1)[0].strip()[:40] or "?"


def replay_pairs(rows: list[dict], log) -> list[PairResult]:
    from engine.errors import AmemError
    from engine.maintenance.runner import run_jobs
    from engine.write.pipeline import add_memory
    from memories.models import Agent, ConflictPair, Note

    results: list[PairResult] = []
    agents = []
    notes_of: dict[str, tuple] = {}
    started = time.monotonic()
    for i, row in enumerate(rows):
        agent = Agent.objects.create(id=f"cur-{row['id']}")
        agents.append(agent)
        result = PairResult(row)
        try:
            a = add_memory(row["a"], agent, occurred_at=T0, subjects=row.get("subjects", []))
            result.outcome_a = a.outcome
            b = add_memory(row["b"], agent, occurred_at=T0 + dt.timedelta(days=1), subjects=row.get("subjects", []))
            result.outcome_b = b.outcome
            notes_of[row["id"]] = (a.note.pk, b.note.pk)
        except AmemError as exc:
            result.outcome_b = f"refused: {exc}"
        results.append(result)
        if (i + 1) % 100 == 0:
            log(f"  pairs written {i + 1}/{len(rows)} ({time.monotonic() - started:.0f} s)")
    run_jobs(NIGHTLY, agents=agents)
    for result in results:
        ids = notes_of.get(result.row["id"])
        if ids is None:
            continue
        a_id, b_id = ids
        pair = ConflictPair.objects.filter(note_a_id__in=ids, note_b_id__in=ids).first() if a_id != b_id else None
        if pair is not None:
            result.conflict, result.rule = True, rule_of(pair.reason)
        both = {n.pk: n for n in Note.objects.filter(pk__in=ids)}
        merged_by_job = any(n.merged_into_id is not None for n in both.values())
        result.auto_merged = result.outcome_b in ("folded", "duplicate") or merged_by_job
        result.waiting = not result.auto_merged and any(n.pending_merge and n.is_active for n in both.values())
    return results


def score_pairs(results: list[PairResult]) -> dict:
    out: dict = {}
    for split in ("all", "tune", "held"):
        chosen = [r for r in results if split == "all" or r.row["split"] == split]
        conflicts, auto, offered = Tally(), Tally(), Tally()
        per_rule: dict[str, Tally] = defaultdict(Tally)
        per_kind: dict[str, Tally] = defaultdict(Tally)
        wrong_merges: Counter = Counter()
        for r in chosen:
            label = r.row["label"]
            contradiction = label == "contradiction"
            conflicts.positives += contradiction
            if contradiction:
                key = f"{r.row['lang']}/{r.row['kind']}"
                per_kind[key].positives += 1
                per_kind[key].hits += r.conflict
                per_kind[key].flagged += r.conflict
            if r.conflict:
                conflicts.flagged += 1
                conflicts.hits += contradiction
                per_rule[r.rule].flagged += 1
                per_rule[r.rule].hits += contradiction
            auto.positives += label == "duplicate"
            if r.auto_merged:
                auto.flagged += 1
                auto.hits += label == "duplicate" or label == "paraphrase"
                if label not in MERGE_OK:
                    wrong_merges[label] += 1
            offered.positives += label in MERGE_OK
            if r.auto_merged or r.waiting:
                offered.flagged += 1
                offered.hits += label in MERGE_OK
        auto_recall_hits = sum(1 for r in chosen if r.auto_merged and r.row["label"] == "duplicate")
        out[split] = {
            "pairs": len(chosen),
            "conflicts": conflicts.as_dict(),
            "conflict_rules": {k: v.as_dict() for k, v in sorted(per_rule.items())},
            "contradiction_kinds": {k: v.as_dict() for k, v in sorted(per_kind.items())},
            # Auto-merge: precision over every merge done without a person (duplicate or paraphrase
            # counts as right); recall over the near-certain duplicates.
            "merges_auto": {**auto.as_dict(), "recall": auto_recall_hits / auto.positives if auto.positives else None},
            "merges_offered": offered.as_dict(),  # merged, or waiting for a person
            "wrong_merges": dict(wrong_merges),
            "waiting": sum(r.waiting for r in chosen),
            "waiting_by_label": dict(Counter(r.row["label"] for r in chosen if r.waiting)),
        }
    return out


def replay_notes(rows: list[dict], log) -> list[tuple[dict, list[str]]]:
    from engine.errors import AmemError
    from engine.maintenance.runner import run_jobs
    from engine.write.pipeline import add_memory
    from memories.models import Agent, Note

    agents = []
    written: list[tuple[dict, str]] = []
    for row in rows:
        agent = Agent.objects.create(id=f"cur-{row['id']}")
        agents.append(agent)
        try:
            written.append((row, str(add_memory(row["text"], agent, occurred_at=T0).note.pk)))
        except AmemError as exc:
            written.append((row, f"refused ({type(exc).__name__})"))
    run_jobs(("quality_scan",), agents=agents)
    out = []
    for row, pk in written:
        if pk.startswith("refused"):
            out.append((row, [pk]))
            continue
        note = Note.objects.get(pk=pk)
        reasons = [r for r in (note.low_quality_reasons or []) if r != "pending_conflict"] if note.low_quality else []
        out.append((row, reasons))
    log(f"  notes written {len(rows)}")
    return out


def score_notes(results: list[tuple[dict, list[str]]]) -> dict:
    out: dict = {}
    for split in ("all", "tune", "held"):
        chosen = [(r, f) for r, f in results if split == "all" or r["split"] == split]
        by_label: dict[str, Tally] = defaultdict(Tally)
        reasons: Counter = Counter()
        low = Tally()
        for row, flags in chosen:
            by_label[row["label"]].positives += 1
            by_label[row["label"]].flagged += bool(flags)
            by_label[row["label"]].hits += bool(flags)
            for reason in flags:
                reasons[(reason.split(" (")[0], row["label"])] += 1
            positive = row["label"] in LOW
            low.positives += positive
            low.flagged += bool(flags)
            low.hits += bool(flags) and positive
        per_reason: dict[str, dict] = defaultdict(dict)
        for (reason, label), n in reasons.items():
            per_reason[reason][label] = n
        out[split] = {
            "notes": len(chosen),
            "low_quality": low.as_dict(),  # positives: vague and gibberish
            "flag_rate": {k: v.flagged / v.positives for k, v in sorted(by_label.items())},
            "per_reason": dict(per_reason),
        }
    return out


def replay_scale(rows: list[dict], log) -> dict:
    from django.test import Client

    from engine.maintenance.runner import run_jobs
    from memories.models import Agent, ApiKey, ConflictPair, Note

    agent = Agent.objects.create(id="cur-locomo")
    _, raw = ApiKey.issue(agent, "curation bench")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    outcomes: Counter = Counter()
    started = time.monotonic()
    for i, row in enumerate(rows):
        answer = client.post(
            "/api/v1/memories", {"text": row["text"], "occurred_at": row["at"]}, content_type="application/json"
        )
        outcomes[
            answer.json().get("outcome", str(answer.status_code))
            if answer.status_code < 300
            else str(answer.status_code)
        ] += 1
        if (i + 1) % 250 == 0:
            log(f"  scale writes {i + 1}/{len(rows)} ({time.monotonic() - started:.0f} s)")
    write_s = time.monotonic() - started
    at_write = ConflictPair.objects.filter(note_a__agent_id=agent.pk, status=ConflictPair.OPEN).count()
    pending_after_write = Note.objects.filter(agent_id=agent.pk, is_active=True, pending_merge=True).count()
    run_jobs(NIGHTLY, agents=[agent])
    notes = Note.objects.filter(agent_id=agent.pk)
    open_conflicts = ConflictPair.objects.filter(note_a__agent_id=agent.pk, status=ConflictPair.OPEN)
    reasons = Counter(rule_of(p.reason) for p in open_conflicts)
    flagged = Counter(
        r
        for n in notes.filter(is_active=True, low_quality=True)
        for r in n.low_quality_reasons or []
        if r != "pending_conflict"
    )
    return {
        "writes": len(rows),
        "write_outcomes": dict(outcomes),
        "write_seconds": round(write_s, 1),
        "open_conflicts_after_write": at_write,
        "pending_merge_after_write": pending_after_write,
        "open_conflicts": open_conflicts.count(),
        "open_conflicts_per_200": round(open_conflicts.count() / len(rows) * 200, 3),
        "conflict_rules": dict(reasons),
        "merged_by_jobs": notes.filter(merged_into__isnull=False).count(),
        "still_pending_merge": notes.filter(is_active=True, pending_merge=True).count(),
        "low_quality_flags": dict(flagged),
        "low_quality_notes": notes.filter(is_active=True, low_quality=True)
        .exclude(low_quality_reasons=["pending_conflict"])
        .count(),
        "active_notes": notes.filter(is_active=True).count(),
    }


def fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def report(results: dict, out) -> None:
    pairs, notes, scale = results.get("pairs"), results.get("notes"), results.get("scale")
    if pairs:
        out("\nConflicts (positive: contradiction), merges (right: duplicate or paraphrase)")
        out(
            f"{'split':6} {'pairs':>5} | {'conf P':>6} {'conf R':>6} {'open':>4} | {'auto P':>6} {'auto R':>6} {'auto':>4} {'wrong':>5} | {'offer P':>7} {'offer R':>7} {'wait':>4}"
        )
        for split in ("all", "tune", "held"):
            s = pairs[split]
            c, a, o = s["conflicts"], s["merges_auto"], s["merges_offered"]
            out(
                f"{split:6} {s['pairs']:5} | {fmt(c['precision']):>6} {fmt(c['recall']):>6} {c['flagged']:4} | "
                f"{fmt(a['precision']):>6} {fmt(a['recall']):>6} {a['flagged']:4} {sum(s['wrong_merges'].values()):5} | "
                f"{fmt(o['precision']):>7} {fmt(o['recall']):>7} {s['waiting']:4}"
            )
        s = pairs["all"]
        out(f"wrong merges by label: {s['wrong_merges'] or 'none'}")
        out(f"waiting for a person by label: {s['waiting_by_label'] or 'none'}")
        out(
            "conflict rules (all): "
            + ", ".join(f"{k} {v['hits']}/{v['flagged']}" for k, v in s["conflict_rules"].items())
        )
        out(
            "contradictions found by kind (all): "
            + ", ".join(f"{k} {v['hits']}/{v['positives']}" for k, v in s["contradiction_kinds"].items())
        )
    if notes:
        out("\nLow quality (positive: vague and gibberish)")
        for split in ("all", "tune", "held"):
            s = notes[split]
            low = s["low_quality"]
            rates = " ".join(f"{k} {v:.2f}" for k, v in s["flag_rate"].items())
            out(
                f"{split:6} {s['notes']:4} notes | P {fmt(low['precision'])} R {fmt(low['recall'])} | flagged share: {rates}"
            )
        out("reasons (all): " + "; ".join(f"{k} {v}" for k, v in notes["all"]["per_reason"].items()))
    if scale:
        out("\nScale: LoCoMo observations through the API, then the nightly jobs")
        for key, value in scale.items():
            out(f"  {key}: {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Replay the curation sets through the product; precision and recall per queue."
    )
    parser.add_argument("--parts", default="pairs,notes,scale", help="comma-separated: pairs, notes, scale")
    parser.add_argument(
        "--mode", choices=("offline", "fake-errors"), default="offline", help="fake-errors: every model call fails"
    )
    parser.add_argument("--split", choices=("all", "tune", "held"), default="all", help="replay only these rows")
    parser.add_argument("--limit", type=int, default=0, help="at most this many rows per set (0: all)")
    parser.add_argument("--scale-notes", type=int, default=2000)
    parser.add_argument("--data-dir", default="", help="scratch folder (default: a new temporary one)")
    parser.add_argument("--json", type=Path, help="write every number to this file")
    args = parser.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    setup(args.mode, args.data_dir)
    server = failing_provider() if args.mode == "fake-errors" else None

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def chosen(rows: list[dict]) -> list[dict]:
        rows = [r for r in rows if args.split == "all" or r["split"] == args.split]
        if not args.limit or len(rows) <= args.limit:
            return rows
        step = len(rows) / args.limit  # an even spread over the set's labels and sources
        return [rows[int(i * step)] for i in range(args.limit)]

    load_avg = os.getloadavg()
    started = time.monotonic()
    results: dict = {"mode": args.mode, "load_at_start": [round(x, 2) for x in load_avg]}
    if "pairs" in parts:
        results["pairs"] = score_pairs(replay_pairs(chosen(load("pairs.jsonl")), log))
    if "notes" in parts:
        results["notes"] = score_notes(replay_notes(chosen(load("notes.jsonl")), log))
    if "scale" in parts:
        results["scale"] = replay_scale(load("locomo_observations.jsonl")[: args.scale_notes], log)
    results["seconds"] = round(time.monotonic() - started, 1)
    results["llm_calls"] = llm_outcomes()
    if server is not None:
        server.stop()
    results["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    report(results, print)
    print(f"\nmodel calls by outcome: {results['llm_calls']}")
    print(f"\n{results['seconds']} s; load {results['load_at_start']} → {results['load_at_end']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    return 0
