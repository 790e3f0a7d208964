"""Draw real notes for blind quality labelling: one file per store and source.

    KDCONV_DATA=… .venv/bin/python -m bench.curation.draw_notes OUT_DIR [--n 300] [--stores S] [--skip-labelled]

Each store of bench/curation/stores.py writes its chat turns (and memory events) as notes; the
quality scan meets exactly those texts. For each store and each source in it (``locomo``,
``kdconv``, ``madial-zh`` turns or memory events, ``madial-en``) a seeded uniform draw of ``n``
rows goes to ``OUT_DIR/STORE-SOURCE-input.jsonl`` with its id, text and date — what an annotator
sees (bench/curation/sets/real/TASK-notes.md), never a rule or a score.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from bench.curation import stores
from bench.curation.sets import SETS, read_jsonl, write_jsonl


def source_of(row: dict) -> str:
    words = row["source"].split()
    return "madial-zh-event" if words[0] == "madial-zh" and words[1] == "memory" else words[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--skip-labelled", action="store_true", help="never draw a text a q*-notes file holds")
    parser.add_argument("--stores", default=",".join(stores.STORES), help="comma-separated (default: all)")
    args = parser.parse_args(argv)
    labelled = set()
    if args.skip_labelled:
        labelled = {r["text"] for path in (SETS / "real").glob("q*-notes.jsonl") for r in read_jsonl(path)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for store in args.stores.split(","):
        by_source: dict[str, list[dict]] = {}
        for row in (r for r in stores.store(store) if r["text"] not in labelled):
            by_source.setdefault(source_of(row), []).append(row)
        for source, rows in sorted(by_source.items()):
            drawn = random.Random(f"{args.seed}-{store}-{source}").sample(rows, min(args.n, len(rows)))
            name = f"{store}-{source}"
            ids = [(f"{name}-{i:04d}", r) for i, r in enumerate(sorted(drawn, key=lambda r: r["at"]), 1)]
            write_jsonl(out / f"{name}-input.jsonl", [{"id": i, "text": r["text"], "at": r["at"][:10]} for i, r in ids])
            write_jsonl(out / f"{name}-key.jsonl", [{"id": i, "source": r["source"]} for i, r in ids])
            print(f"{name}: {len(drawn)} of {len(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
