"""The scale row on real-chat stores: what a reviewer is shown, night after night.

    KDCONV_DATA=… .venv/bin/python -m bench curation --parts scale --stores held-locomo-madial,held-kdconv-madial-en

For each store (bench/curation/stores.py): one agent writes the store's chat through the JSON API
with its dates, then the store's planted changes (sets/real/*-planted.jsonl, written blind from
the store's notes) 30 days after the notes they change; then the nightly jobs run ``nights``
times. After each night: which planted changes reached a person (an open conflict or a waiting
pair joining the two notes), every card waiting for a person and whether it is a planted change,
a pair an annotator labelled a change or one fact (sets/real), labelled otherwise, or never
labelled; false conflicts per 200 notes; everything queued as a share of the notes; the sweep's
seconds. ``--cards FILE`` keeps every card's two texts for labelling after the run.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter

from bench.curation import sets, stores

PLANTED_OF = {"fit-locomo-kdconv": "p0", "held-locomo-madial": "p1", "held-kdconv-madial-en": "p2"}
TRUE_LABELS = ("contradiction", "duplicate")


def known_labels() -> dict[tuple[str, str], str]:
    """Every labelled candidate by its two texts (older, newer)."""
    labels: dict[tuple[str, str], str] = {}
    for path in sorted((sets.SETS / "real").glob("[rc]*-pairs.jsonl")):
        for row in sets.read_jsonl(path):
            labels[(row["a"], row["b"])] = row["label"]
    return labels


def write_store(store: str, agent, log):
    """Write ``store``'s chat through the JSON API as ``agent``, with its dates, then its planted
    changes 30 days after the notes they change: (the writer with each text's note id, rows, plants)."""
    from django.test import Client

    from bench.curation.replay import ApiWriter
    from memories.models import ApiKey

    rows = stores.store(store)
    plants = sets.read_jsonl(sets.SETS / "real" / f"{PLANTED_OF[store]}-planted.jsonl")
    _, raw = ApiKey.issue(agent, "curation bench")
    write = ApiWriter(Client(HTTP_AUTHORIZATION=f"Bearer {raw}"))
    started = time.monotonic()
    for i, row in enumerate(rows):
        write(row["text"], row["at"])
        if (i + 1) % 500 == 0:
            log(f"  {store}: writes {i + 1}/{len(rows)} ({time.monotonic() - started:.0f} s)")
    when = {r["text"]: r["at"] for r in rows}
    for plant in plants:
        original_at = when.get(plant["original"], "2023-06-01T10:00:00+00:00")
        write(plant["change"], (dt.datetime.fromisoformat(original_at) + dt.timedelta(days=30)).isoformat())
    return write, rows, plants


def replay(store: str, nights: int, log) -> dict:
    from engine.maintenance.runner import SEQUENCES, run_jobs
    from memories.models import Agent, JobRun, Note, Pair

    agent = Agent.objects.create(id=f"scale-{store}"[:64])
    started = time.monotonic()
    write, rows, plants = write_store(store, agent, log)
    ids, outcomes = write.ids, write.outcomes
    write_s = time.monotonic() - started
    labels = known_labels()
    text_of: dict[str, str] = {}
    day_of: dict[str, str] = {}  # written into the cards file, for annotators of cards nobody labelled
    planted_pairs = {
        frozenset((ids.get(p["original"]), ids.get(p["change"])))
        for p in plants
        if p["original"] in ids and p["change"] in ids
    }
    per_night, cards_out = [], []
    for night in range(1, nights + 1):
        t0 = time.monotonic()
        run_jobs(SEQUENCES["nightly"], agents=[agent])
        night_s = time.monotonic() - t0
        sweep = JobRun.objects.filter(agent_id=agent.pk, job="pair_sweep").order_by("-pk").first()
        active = Note.objects.filter(agent_id=agent.pk, is_active=True)
        notes = active.count()
        open_pairs = Pair.objects.open().filter(newer__agent_id=agent.pk)
        conflicts = list(open_pairs.of_kind(Pair.CONFLICT))
        waiting = list(open_pairs.of_kind(Pair.MERGE).filter(newer__is_active=True).values_list("newer_id", "older_id"))
        cards = [("conflict", str(p.newer_id), str(p.older_id)) for p in conflicts]
        cards += [("pair", str(newer), str(older)) for newer, older in waiting]
        wanted = {pk for _, x, y in cards for pk in (x, y) if pk not in text_of}
        for pk, content, created in Note.objects.filter(pk__in=wanted).values_list("pk", "content", "created_at"):
            text_of[str(pk)], day_of[str(pk)] = content, created.date().isoformat()
        verdicts: Counter = Counter()
        false_conflicts = 0
        for kind, x, y in cards:
            verdict = _verdict(frozenset((x, y)), text_of.get(x, ""), text_of.get(y, ""), planted_pairs, labels)
            verdicts[verdict] += 1
            false_conflicts += kind == "conflict" and verdict in ("labelled other", "never labelled")
            if night == nights:
                cards_out.append(
                    {
                        "kind": kind,
                        "a": text_of.get(y, ""),
                        "a_at": day_of.get(y, ""),
                        "b": text_of.get(x, ""),
                        "b_at": day_of.get(x, ""),
                        "verdict": verdict,
                    }
                )
        reached = sum(
            1
            for p in plants
            if frozenset((ids.get(p["original"]), ids.get(p["change"]))) in {frozenset((x, y)) for _, x, y in cards}
        )
        true = verdicts["planted"] + verdicts["labelled change"] + verdicts["labelled one fact"]
        per_night.append(
            {
                "night": night,
                "planted_reached": reached,
                "cards": len(cards),
                "cards_true": true,
                "true_share": round(true / len(cards), 3) if cards else None,
                "verdicts": dict(verdicts),
                "open_conflicts": len(conflicts),
                "false_conflicts_per_200": round(false_conflicts / max(notes, 1) * 200, 2),
                "low_quality": active.filter(low_quality=True).count(),
                "queued_share": round((len(cards) + active.filter(low_quality=True).count()) / max(notes, 1), 4),
                "night_seconds": round(night_s, 1),
                "sweep_counts": (sweep.counts if sweep else {}),
            }
        )
        log(f"  {store}: night {night}: {per_night[-1]}")
    return {
        "store": store,
        "writes": len(rows) + len(plants),
        "write_outcomes": dict(outcomes),
        "write_seconds": round(write_s, 1),
        "notes": Note.objects.filter(agent_id=agent.pk, is_active=True).count(),
        "planted": len(plants),
        "nights": per_night,
        "cards": cards_out,
    }


def _verdict(pair: frozenset, text_x: str, text_y: str, planted: set, labels: dict) -> str:
    """A card is true when it joins a planted change, or two texts an annotator labelled one change or one fact."""
    if pair in planted:
        return "planted"
    label = labels.get((text_y, text_x)) or labels.get((text_x, text_y))
    if label is None:
        return "never labelled"
    return {"contradiction": "labelled change", "duplicate": "labelled one fact"}.get(label, "labelled other")
