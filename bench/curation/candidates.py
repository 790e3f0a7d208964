"""The sweep's candidate pairs on a real-chat store, for blind labelling.

    KDCONV_DATA=/tmp/kdconv .venv/bin/python -m bench.curation.candidates STORE --out DIR

Writes STORE through the JSON API (offline, one agent, the rows' own dates; bench/curation/stores.py),
then lists every pair the nightly sweep would weigh (each note against its ``sweep_neighbours``
nearest notes, older first) with the cosine, into ``DIR/STORE-candidates.jsonl``, and the notes
into ``DIR/STORE-notes.jsonl``. The judge's scores go to ``DIR/STORE-judged.jsonl``, a file kept
apart so that annotators never see them.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from bench.curation import stores
from bench.curation.sets import write_jsonl


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store", choices=stores.STORES)
    parser.add_argument("--out", required=True)
    parser.add_argument("--data-dir", default="")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from bench.curation.replay import setup

    setup("offline", args.data_dir)
    from django.test import Client

    from engine import config
    from engine.judgments import triage
    from engine.maintenance import vectors
    from memories.models import Agent, ApiKey, Note

    rows = stores.store(args.store)
    agent = Agent.objects.create(id="real-store")
    _, raw = ApiKey.issue(agent, "candidates")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    started = time.monotonic()
    source_of: dict[str, dict] = {}
    for i, row in enumerate(rows):
        answer = client.post(
            "/api/v1/memories", {"text": row["text"], "occurred_at": row["at"]}, content_type="application/json"
        )
        if answer.status_code < 300 and answer.json().get("id"):
            source_of[answer.json()["id"]] = row
        if (i + 1) % 500 == 0:
            print(f"  writes {i + 1}/{len(rows)} ({time.monotonic() - started:.0f} s)", flush=True)
    notes = list(
        Note.objects.active()
        .filter(agent_id=agent.pk, note_type__in=(Note.MEMORY, Note.KNOWLEDGE))
        .exclude(layer__in=("episode", "reflection"))
        .order_by("created_at", "pk")
    )
    kept, matrix = vectors.load(notes)
    k = min(config.get_config().sweep_neighbours, len(kept) - 1)
    seen: set[tuple[int, int]] = set()
    candidates, judged = [], []
    for i in range(len(kept)):
        sims = matrix @ matrix[i]
        sims[i] = -np.inf
        for j in np.argpartition(-sims, k - 1)[:k]:
            a, b = sorted((i, int(j)), key=lambda x: (kept[x].created_at, str(kept[x].pk)))
            if (a, b) in seen:
                continue
            seen.add((a, b))
            older, newer = kept[a], kept[b]
            pid = f"{args.store}:{older.pk}:{newer.pk}"
            lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in older.content + newer.content) else "en"
            candidates.append(
                {
                    "id": pid,
                    "lang": lang,
                    "a": older.content,
                    "a_at": older.created_at.date().isoformat(),
                    "b": newer.content,
                    "b_at": newer.created_at.date().isoformat(),
                    "similarity": round(float(sims[j]), 4),
                }
            )
            t = triage.assess(older, newer.content, float(sims[j]), subjects=newer.subjects)
            judged.append(
                {
                    "id": pid,
                    "action": t.action,
                    "change": round(t.guess.change, 4) if t.guess else None,
                    "same": round(t.guess.same, 4) if t.guess else None,
                }
            )
    write_jsonl(out / f"{args.store}-candidates.jsonl", candidates)
    write_jsonl(out / f"{args.store}-judged.jsonl", judged)
    write_jsonl(
        out / f"{args.store}-notes.jsonl",
        [
            {"id": str(n.pk), "text": n.content, "at": n.created_at.date().isoformat(), **_source(source_of, n)}
            for n in kept
        ],
    )
    print(f"{args.store}: {len(rows)} rows, {len(kept)} notes, {len(candidates)} candidate pairs")
    return 0


def _source(source_of: dict[str, dict], note) -> dict:
    row = source_of.get(str(note.pk))
    return {"source": row["source"], "lang": row["lang"]} if row else {}


if __name__ == "__main__":
    raise SystemExit(main())
