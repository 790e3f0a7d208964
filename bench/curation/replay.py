"""Replay the curation evaluation's labelled sets through the product and score its queues.

    .venv/bin/python -m bench curation                      # all three parts, offline
    .venv/bin/python -m bench curation --parts pairs,notes  # skip the 2,000-note scale row
    .venv/bin/python -m bench curation --split held         # only the held-out rows
    .venv/bin/python -m bench curation --mode fake-errors  # LLM mode, every model call fails

What runs is the product's own code on a scratch SQLite database and embedded index:

* **pairs** (every pair set of bench/curation/sets.py: the developers' ``dev`` set and the blind
  sets, each labelled contradiction / duplicate / compatible / unrelated): each pair gets an
  agent of its own; text A is written with ``add_memory`` (the full write path: quality gate,
  L1/L2 dedup, the pair triage, construct, link, facts), text B a day later; then the nightly
  jobs run for that agent (pending merges, consolidation, contradiction sweep, quality scan).
  A pair *opened a conflict* when an open conflict ``Pair`` joins its two notes; it *waits as a
  pair* when an open merge ``Pair`` joins them (its newer note active); it *reached a person* when either holds and
  nothing was merged; it was *merged* when B was folded into A at write (or found a duplicate)
  or a job merged one into the other — a merge of anything but a duplicate is a wrong merge.
* **notes** (every note set): each note written alone by its own agent, dated so that the
  scan runs on the sets' review day (2024-06-01), then the quality scan; a note is *flagged*
  when the write refused it or the scan flagged it. Positive: every label but ``fine``.
* **scale**: about 2,300 notes of real chat — LoCoMo observations (sets/locomo_observations.jsonl)
  and MADial-Bench's Chinese memory events — written through the JSON API (POST
  /api/v1/memories) by one agent with their dates, then the blind set's 20 planted changes a
  month after the notes they change, then the nightly jobs: which planted changes reached a
  person, open conflicts per 200 notes (every conflict not between a planted pair counts as
  false), and every card queued for a person as a share of the notes.

``--mode fake-errors`` runs the same in LLM mode against the fake provider
(testsupport/llm_server.py) answering every call with HTTP 500: each judgment falls back to
the offline rules, and the jobs leave alone what a failed call could not decide.

Scores per set, split (``dev`` / ``tune`` / ``held``: the held authors were never tuned on) and
language. ``--json FILE`` keeps every number.
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

from bench.curation import sets
from testsupport.llm_server import FakeLLMServer, Scripted

SETS = sets.SETS
T0 = dt.datetime(2024, 1, 1, 9, 0, tzinfo=dt.UTC)
REVIEW_DAY = dt.datetime(2024, 6, 1, 9, 0, tzinfo=dt.UTC)  # the note sets' "now" (sets/blind/TASK-notes.md)


def load(name: str) -> list[dict]:
    return sets.read_jsonl(SETS / name)


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
    opened_by: str = ""
    merged: bool = False
    waiting: bool = False
    guess: str = ""

    @property
    def reached(self) -> bool:
        return (self.conflict or self.waiting) and not self.merged

    @property
    def fate(self) -> str:
        if self.outcome_b.startswith("refused"):
            return "refused"
        if self.merged:
            return "folded" if self.outcome_b in ("folded", "duplicate") else "merged"
        if self.conflict:
            return "conflict"
        if self.waiting:
            return "waiting"
        return "unseen"


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


def rule_of(pair) -> str:
    """Who opened a conflict and on what evidence: "rules", "facts", "model", or an older reason's head."""
    if getattr(pair, "opened_by", ""):
        return pair.opened_by
    text = re.sub(r"^\[write\]\s*|^offline:\s*", "", pair.reason or "").strip()
    return text.split(":", 1)[0].strip()[:40] or "?"


def replay_pairs(rows: list[dict], log) -> list[PairResult]:
    from engine.errors import AmemError
    from engine.maintenance.runner import SEQUENCES, run_jobs
    from engine.write.pipeline import add_memory
    from memories.models import Agent, Note, Pair

    results: list[PairResult] = []
    agents = []
    notes_of: dict[str, tuple] = {}
    started = time.monotonic()
    for i, row in enumerate(rows):
        agent = Agent.objects.create(id=f"cur-{row['set']}-{row['id']}"[:64])
        agents.append(agent)
        result = PairResult(row)
        try:
            a = add_memory(row["a"], agent, occurred_at=T0, subjects=row.get("subjects", []))
            result.outcome_a = a.outcome
            b = add_memory(row["b"], agent, occurred_at=T0 + dt.timedelta(days=1), subjects=row.get("subjects", []))
            result.outcome_b = b.outcome
            notes_of[row["id"] + row["set"]] = (a.note.pk, b.note.pk)
        except AmemError as exc:
            result.outcome_b = f"refused: {exc}"
        results.append(result)
        if (i + 1) % 100 == 0:
            log(f"  pairs written {i + 1}/{len(rows)} ({time.monotonic() - started:.0f} s)")
    run_jobs(SEQUENCES["nightly"], agents=agents)
    for result in results:
        ids = notes_of.get(result.row["id"] + result.row["set"])
        if ids is None:
            continue
        a_id, b_id = ids
        if a_id != b_id:
            between = Pair.objects.open().filter(older_id__in=ids, newer_id__in=ids)
            pair = between.of_kind(Pair.CONFLICT).first()
            if pair is not None:
                result.conflict, result.rule = True, rule_of(pair)
            asked = between.of_kind(Pair.MERGE).filter(newer__is_active=True).first()
            if asked is not None:
                result.waiting, result.guess = True, asked.guess
        both = {n.pk: n for n in Note.objects.filter(pk__in=ids)}
        merged_by_job = any(n.merged_into_id is not None for n in both.values())
        result.merged = result.outcome_b in ("folded", "duplicate") or merged_by_job
    return results


def _groups(results: list[PairResult]) -> dict[str, list[PairResult]]:
    groups: dict[str, list[PairResult]] = defaultdict(list)
    for r in results:
        for key in ("all", r.row["split"], f"{r.row['split']}/{r.row['lang']}", f"set {r.row['set']}"):
            groups[key].append(r)
    return groups


def score_pairs(results: list[PairResult]) -> dict:
    out: dict = {}
    for key, chosen in sorted(_groups(results).items()):
        conflicts, reach, auto = Tally(), Tally(), Tally()
        per_rule: dict[str, Tally] = defaultdict(Tally)
        per_topic: dict[str, Tally] = defaultdict(Tally)
        wrong_merges: Counter = Counter()
        fates: Counter = Counter()
        waiting: Counter = Counter()
        for r in chosen:
            label = r.row["label"]
            contradiction = label == "contradiction"
            conflicts.positives += contradiction
            reach.positives += contradiction
            auto.positives += label == "duplicate"
            if contradiction:
                fates[r.fate] += 1
                topic = per_topic[r.row.get("topic") or "?"]
                topic.positives += 1
                topic.hits += r.reached
                reach.hits += r.reached
            if r.conflict and not r.merged:
                conflicts.flagged += 1
                conflicts.hits += contradiction
                per_rule[r.rule].flagged += 1
                per_rule[r.rule].hits += contradiction
            if r.merged:
                auto.flagged += 1
                auto.hits += label == "duplicate"
                if label != "duplicate":
                    wrong_merges[label] += 1
            if r.waiting and not r.merged:
                waiting[label] += 1
        out[key] = {
            "pairs": len(chosen),
            "conflicts": conflicts.as_dict(),
            "reached": reach.as_dict(),
            "conflict_by_opener": {k: v.as_dict() for k, v in sorted(per_rule.items())},
            "reached_by_topic": {k: v.as_dict() for k, v in sorted(per_topic.items())},
            "contradiction_fates": dict(fates),
            "merges": auto.as_dict(),
            "wrong_merges": dict(wrong_merges),
            "waiting_by_label": dict(waiting),
        }
    return out


def replay_notes(rows: list[dict], log) -> list[tuple[dict, list[str]]]:
    from django.utils import timezone

    from engine.errors import AmemError
    from engine.maintenance.runner import run_jobs
    from engine.write.pipeline import add_memory
    from memories.models import Agent, Note

    # Dated so that today is the sets' review day: a reminder of 2024-05-30 "tomorrow" has passed.
    shift = timezone.now() - REVIEW_DAY
    agents = []
    written: list[tuple[dict, str]] = []
    for row in rows:
        agent = Agent.objects.create(id=f"cur-{row['set']}-{row['id']}"[:64])
        agents.append(agent)
        at = dt.datetime.fromisoformat(row["at"]).replace(tzinfo=dt.UTC) if row.get("at") else T0
        try:
            written.append((row, str(add_memory(row["text"], agent, occurred_at=at + shift).note.pk)))
        except AmemError as exc:
            written.append((row, f"refused ({type(exc).__name__})"))
    run_jobs(("quality_scan",), agents=agents)
    out = []
    for row, pk in written:
        if pk.startswith("refused"):
            out.append((row, ["refused"]))
            continue
        note = Note.objects.get(pk=pk)
        out.append((row, list(note.low_quality_reasons or []) if note.low_quality else []))
    log(f"  notes written {len(rows)}")
    return out


def score_notes(results: list[tuple[dict, list[str]]]) -> dict:
    groups: dict[str, list] = defaultdict(list)
    for row, flags in results:
        for key in ("all", row["split"], f"{row['split']}/{row['lang']}", f"set {row['set']}"):
            groups[key].append((row, flags))
    out: dict = {}
    for key, chosen in sorted(groups.items()):
        by_label: dict[str, Tally] = defaultdict(Tally)
        reasons: Counter = Counter()
        low = Tally()
        refused_fine = 0
        for row, flags in chosen:
            label = row["label"]
            by_label[label].positives += 1
            by_label[label].flagged += bool(flags)
            for reason in flags:
                reasons[(reason.split(" (")[0], label)] += 1
            positive = label != "fine"
            refused_fine += label == "fine" and "refused" in flags
            low.positives += positive
            low.flagged += bool(flags)
            low.hits += bool(flags) and positive
        fine = by_label.get("fine", Tally())
        per_reason: dict[str, dict] = defaultdict(dict)
        for (reason, label), n in reasons.items():
            per_reason[reason][label] = n
        out[key] = {
            "notes": len(chosen),
            "low_quality": low.as_dict(),  # positives: every label but fine
            "fine_flagged": fine.flagged / fine.positives if fine.positives else None,
            "fine_refused": refused_fine,
            "recall_by_label": {k: v.flagged / v.positives for k, v in sorted(by_label.items()) if k != "fine"},
            "per_reason": dict(per_reason),
        }
    return out


def scale_rows(limit: int) -> tuple[list[dict], list[dict]]:
    """The scale store: LoCoMo observations and MADial's Chinese events, the planted originals among them."""
    rows = load("locomo_observations.jsonl")[:limit]
    madial = Path(os.environ.get("AMEM_BENCH_DATA", "")) / "madial" / "MADial-Bench-zh-memory.json"
    if madial.exists():
        for line in madial.read_text(encoding="utf-8").splitlines():
            for event in json.loads(line).values():
                rows.append(
                    {
                        "text": event["event"],
                        "at": f"{event['time']}T10:00:00+00:00",
                        "source": f"madial-zh memory {event['id']}",
                    }
                )
    texts = {r["text"] for r in rows}
    planted = sets.planted()
    for plant in planted:
        if plant["original"] not in texts:
            rows.append(
                {"text": plant["original"], "at": "2023-06-01T10:00:00+00:00", "source": plant["original_source"]}
            )
            texts.add(plant["original"])
    return rows, planted


class ApiWriter:
    """Writes a text with its date through POST /api/v1/memories: each answer's outcome counted,
    each written text's note id kept (the first, when a text comes twice)."""

    def __init__(self, client) -> None:
        self.client = client
        self.outcomes: Counter = Counter()
        self.ids: dict[str, str] = {}

    def __call__(self, text: str, at: str) -> None:
        answer = self.client.post(
            "/api/v1/memories", {"text": text, "occurred_at": at}, content_type="application/json"
        )
        body = answer.json() if answer.status_code < 300 else {}
        self.outcomes[body.get("outcome", str(answer.status_code))] += 1
        if body.get("id"):
            self.ids.setdefault(text, body["id"])


def replay_scale(limit: int, log) -> dict:
    from django.test import Client

    from engine.maintenance.runner import SEQUENCES, run_jobs
    from memories.models import Agent, ApiKey, Note, Pair

    rows, planted = scale_rows(limit)
    agent = Agent.objects.create(id="cur-scale")
    _, raw = ApiKey.issue(agent, "curation bench")
    write = ApiWriter(Client(HTTP_AUTHORIZATION=f"Bearer {raw}"))
    outcomes, ids = write.outcomes, write.ids
    started = time.monotonic()

    for i, row in enumerate(rows):
        write(row["text"], row["at"])
        if (i + 1) % 250 == 0:
            log(f"  scale writes {i + 1}/{len(rows)} ({time.monotonic() - started:.0f} s)")
    when = {r["text"]: r["at"] for r in rows}
    for plant in planted:
        at = dt.datetime.fromisoformat(when[plant["original"]]) + dt.timedelta(days=30)
        write(plant["change"], at.isoformat())
    write_s = time.monotonic() - started
    run_jobs(SEQUENCES["nightly"], agents=[agent])
    notes = Note.objects.filter(agent_id=agent.pk)
    active = notes.filter(is_active=True)
    open_pairs = Pair.objects.open().filter(newer__agent_id=agent.pk)
    open_conflicts = list(open_pairs.of_kind(Pair.CONFLICT))
    asked = open_pairs.of_kind(Pair.MERGE).filter(newer__is_active=True)
    asked_pairs = list(asked.values_list("older_id", "newer_id"))
    planted_pairs = {
        frozenset((ids.get(p["original"]), ids.get(p["change"])))
        for p in planted
        if p["original"] in ids and p["change"] in ids
    }
    reached, by_plant = 0, []
    for plant in planted:
        a, b = ids.get(plant["original"]), ids.get(plant["change"])
        found = "not written"
        if a and b:
            conflict = any({str(p.older_id), str(p.newer_id)} == {a, b} for p in open_conflicts)
            waiting = any({str(older), str(newer)} == {a, b} for older, newer in asked_pairs)
            found = "conflict" if conflict else "waiting" if waiting else "unseen"
        reached += found in ("conflict", "waiting")
        by_plant.append({"id": plant["id"], "lang": plant.get("lang", ""), "fate": found})
    false = [p for p in open_conflicts if frozenset((str(p.older_id), str(p.newer_id))) not in planted_pairs]
    pending = asked.values("newer_id").distinct().count()
    low = active.filter(low_quality=True).count()
    in_conflict = {pk for p in open_conflicts for pk in (p.older_id, p.newer_id)}
    queued = len(open_conflicts) + pending + low
    written_notes = active.count()
    return {
        "writes": len(rows) + len(planted),
        "write_outcomes": dict(outcomes),
        "write_seconds": round(write_s, 1),
        "planted": len(planted),
        "planted_reached": reached,
        "planted_fates": by_plant,
        "open_conflicts": len(open_conflicts),
        "false_conflicts": len(false),
        "false_conflicts_per_200": round(len(false) / max(written_notes, 1) * 200, 3),
        "conflict_openers": dict(Counter(rule_of(p) for p in open_conflicts)),
        "notes_in_conflicts": len(in_conflict),
        "pending_merges": pending,
        "low_quality": low,
        "low_quality_reasons": dict(
            Counter(r for n in active.filter(low_quality=True) for r in n.low_quality_reasons or [])
        ),
        "queued_cards": queued,
        "queued_share": round(queued / max(written_notes, 1), 4),
        "merged_by_jobs": notes.filter(merged_into__isnull=False).count(),
        "active_notes": written_notes,
    }


def fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def _order(keys) -> list[str]:
    rank = {"all": 0, "dev": 1, "tune": 2, "held": 3}
    return sorted(keys, key=lambda k: (k.startswith("set "), rank.get(k.split("/")[0], 9), k))


def report(results: dict, out) -> None:
    pairs, notes, scale = results.get("pairs"), results.get("notes"), results.get("scale")
    if pairs:
        out("\nPairs: contradictions reaching a person, the conflict queue, merges")
        out(
            f"{'rows':12} {'pairs':>5} | {'reach':>5} | {'conf P':>6} {'conf R':>6} {'open':>4} | "
            f"{'merges':>6} {'wrong':>5} | waiting by label"
        )
        for key in _order(pairs):
            s = pairs[key]
            c, r, m = s["conflicts"], s["reached"], s["merges"]
            out(
                f"{key:12} {s['pairs']:5} | {fmt(r['recall']):>5} | {fmt(c['precision']):>6} {fmt(c['recall']):>6} "
                f"{c['flagged']:4} | {m['flagged']:6} {sum(s['wrong_merges'].values()):5} | {s['waiting_by_label']}"
            )
        for key in ("dev", "tune", "held"):
            if key not in pairs:
                continue
            s = pairs[key]
            out(f"{key}: contradictions' fates {s['contradiction_fates']}; wrong merges {s['wrong_merges'] or 'none'}")
            out(
                f"{key}: conflicts by opener "
                + ", ".join(f"{k} {v['hits']}/{v['flagged']}" for k, v in s["conflict_by_opener"].items())
            )
            out(
                f"{key}: reached by topic "
                + ", ".join(f"{k} {v['hits']}/{v['positives']}" for k, v in s["reached_by_topic"].items())
            )
    if notes:
        out("\nSingle notes: low quality (positive: every label but fine)")
        for key in _order(notes):
            s = notes[key]
            low = s["low_quality"]
            rates = " ".join(f"{k} {v:.2f}" for k, v in s["recall_by_label"].items())
            out(
                f"{key:12} {s['notes']:4} | P {fmt(low['precision'])} R {fmt(low['recall'])} | fine flagged "
                f"{fmt(s['fine_flagged'])}, refused {s['fine_refused']} | recall: {rates}"
            )
        for key in ("tune", "held"):
            if key in notes:
                out(f"{key}: reasons " + "; ".join(f"{k} {v}" for k, v in notes[key]["per_reason"].items()))
    for store in results.get("real_scale", []):
        out(f"\nScale on {store['store']}: {store['notes']} notes, {store['planted']} planted changes")
        out(f"  writes: {store['write_outcomes']} in {store['write_seconds']} s")
        out(
            f"  {'night':>5} {'reached':>7} {'cards':>5} {'true':>5} {'share':>5} {'false/200':>9} {'queued':>6} {'s':>6}  verdicts"
        )
        for n in store["nights"]:
            out(
                f"  {n['night']:5} {n['planted_reached']:7} {n['cards']:5} {n['cards_true']:5} "
                f"{n['true_share'] if n['true_share'] is not None else '-':>5} {n['false_conflicts_per_200']:9} "
                f"{n['queued_share']:6} {n['night_seconds']:6}  {n['verdicts']}"
            )
        store.pop("cards", None)
    if scale:
        out("\nScale: real chat through the API, planted changes, then the nightly jobs")
        for key, value in scale.items():
            if key != "planted_fates":
                out(f"  {key}: {value}")
        out("  planted: " + ", ".join(f"{p['id']} {p['fate']}" for p in scale["planted_fates"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Replay the curation sets through the product; precision and recall per queue."
    )
    parser.add_argument("--parts", default="pairs,notes,scale", help="comma-separated: pairs, notes, scale")
    parser.add_argument(
        "--mode", choices=("offline", "fake-errors"), default="offline", help="fake-errors: every model call fails"
    )
    parser.add_argument("--split", choices=("all", *sets.SPLITS), default="all", help="replay only these rows")
    parser.add_argument("--limit", type=int, default=0, help="at most this many rows per part (0: all)")
    parser.add_argument("--scale-notes", type=int, default=2000, help="LoCoMo observations in the scale store")
    parser.add_argument(
        "--stores",
        default="",
        help="scale on these real-chat stores instead (comma-separated: bench/curation/stores.py), night after night",
    )
    parser.add_argument("--nights", type=int, default=3, help="nights of jobs on each real-chat store")
    parser.add_argument("--cards", type=Path, help="with --stores: write every card of the last night to this file")
    parser.add_argument("--data-dir", default="", help="scratch folder (default: a new temporary one)")
    parser.add_argument("--json", type=Path, help="write every number to this file")
    args = parser.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    setup(args.mode, args.data_dir)
    server = failing_provider() if args.mode == "fake-errors" else None
    splits = sets.SPLITS if args.split == "all" else (args.split,)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def chosen(rows: list[dict]) -> list[dict]:
        if not args.limit or len(rows) <= args.limit:
            return rows
        step = len(rows) / args.limit  # an even spread over the sets and labels
        return [rows[int(i * step)] for i in range(args.limit)]

    load_avg = os.getloadavg()
    started = time.monotonic()
    results: dict = {"mode": args.mode, "load_at_start": [round(x, 2) for x in load_avg]}
    if "pairs" in parts:
        results["pairs"] = score_pairs(replay_pairs(chosen(sets.pairs(splits)), log))
    if "notes" in parts:
        results["notes"] = score_notes(replay_notes(chosen(sets.notes(splits)), log))
    if "scale" in parts and args.stores:
        from bench.curation import real_scale

        results["real_scale"] = [real_scale.replay(s.strip(), args.nights, log) for s in args.stores.split(",")]
        if args.cards:
            cards = [{**c, "store": r["store"]} for r in results["real_scale"] for c in r.pop("cards")]
            args.cards.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cards), encoding="utf-8")
    elif "scale" in parts:
        results["scale"] = replay_scale(args.scale_notes, log)
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
