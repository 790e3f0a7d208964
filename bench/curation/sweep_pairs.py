"""Every pair tonight's sweep would weigh on a real store, planted changes included, for ranking offline.

    KDCONV_DATA=… .venv/bin/python -m bench.curation.sweep_pairs STORE --out DIR

Writes STORE through the JSON API like the scale row (bench/curation/real_scale.py: the chat with
its dates, then the store's planted changes 30 days after the notes they change), then lists each
pair the nightly sweep weighs — each note against its ``sweep_neighbours`` nearest notes by the
stored cosine plus the shared rare words (engine/maintenance/lexical.py), older first — with the
cosine, the nearness and whether it is a planted pair, into ``DIR/STORE-sweep.jsonl``. A judge's ranking
of a store is then measured without a database (bench/curation/rank_real.py).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.curation import stores
from bench.curation.real_scale import write_store


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
    from engine import config
    from engine.maintenance import lexical, vectors
    from engine.maintenance.pair_sweep import in_time_order, neighbours
    from memories.models import Agent, Note

    started = time.monotonic()
    agent = Agent.objects.create(id="real-store")
    write, _, plants = write_store(args.store, agent, lambda line: print(line, flush=True))
    planted = {
        frozenset((write.ids[p["original"]], write.ids[p["change"]])): p["id"]
        for p in plants
        if p["original"] in write.ids and p["change"] in write.ids
    }
    notes = list(
        Note.objects.active()
        .filter(agent_id=agent.pk, note_type__in=(Note.MEMORY, Note.KNOWLEDGE))
        .exclude(layer__in=("episode", "reflection"))
        .order_by("created_at", "pk")
    )
    kept, matrix = vectors.load(notes)
    words = lexical.rows(kept)
    k = min(config.get_config().sweep_neighbours, len(kept) - 1)
    seen: set[tuple[object, object]] = set()
    pairs = []
    for i in range(len(kept)):
        for j, cosine, near in neighbours(matrix, words, i, k):
            older, newer = in_time_order(kept[j], kept[i])
            if (older.pk, newer.pk) in seen:
                continue
            seen.add((older.pk, newer.pk))
            pairs.append(
                {
                    "older": str(older.pk),
                    "newer": str(newer.pk),
                    "a": older.content,
                    "b": newer.content,
                    "a_subjects": list(older.subjects or []),
                    "b_subjects": list(newer.subjects or []),
                    "similarity": round(cosine, 4),
                    "nearness": round(near, 4),
                    "planted": planted.get(frozenset((str(older.pk), str(newer.pk))), ""),
                }
            )
    path = out / f"{args.store}-sweep.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in pairs), encoding="utf-8")
    found = sum(1 for p in pairs if p["planted"])
    print(
        f"{args.store}: {len(kept)} notes, {len(pairs)} pairs, {found} of {len(plants)} planted changes among them "
        f"({time.monotonic() - started:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
