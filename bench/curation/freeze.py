"""Freeze an annotator's labels: the pairs they saw, their labels and how each pair was drawn, one file.

    .venv/bin/python -m bench.curation.freeze DIR AUTHOR LABELS_FILE

Joins ``DIR/AUTHOR-input.jsonl`` (what the annotator saw), ``DIR/AUTHOR-key.jsonl`` (where the pair
came from: bench/curation/sample.py) and the annotator's labels into
``bench/curation/sets/real/AUTHOR-pairs.jsonl``. Every input row must have exactly one label.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.curation.sample import read
from bench.curation.sets import SETS

LABELS = ("contradiction", "duplicate", "compatible", "unrelated")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("author")
    parser.add_argument("labels")
    args = parser.parse_args(argv)
    folder = Path(args.dir)
    inputs = read(folder / f"{args.author}-input.jsonl")
    keys = {row["id"]: row for row in read(folder / f"{args.author}-key.jsonl")}
    labels = {row["id"]: row for row in read(Path(args.labels))}
    missing = [row["id"] for row in inputs if row["id"] not in labels]
    wrong = [row["id"] for row in labels.values() if row.get("label") not in LABELS]
    if missing or wrong or len(labels) != len(inputs):
        raise SystemExit(f"{args.author}: {len(missing)} unlabelled, {len(wrong)} bad labels, {len(labels)} labels")
    out = SETS / "real" / f"{args.author}-pairs.jsonl"
    rows = []
    for row in inputs:
        key = {k: v for k, v in keys[row["id"]].items() if k != "id"}
        label = labels[row["id"]]
        rows.append({**row, "label": label["label"], "why": label.get("why", ""), **key})
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{out}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
