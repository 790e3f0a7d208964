"""Draw fine fit-split notes for writers of later turns (TASK-planted.md, TASK-followups.md).

    .venv/bin/python -m bench.curation.draw_fine OUT --files q8 q11 q13 --count 200 --seed 20261205

A seeded sample of the notes annotators labelled ``fine`` in the fit split's q-files, leaving out
every note a planted change or a later turn was already written from (``original_id`` of the
p- and f-files), written as ``{"id", "text", "at"}`` rows: all a writer sees. Only fit-split files
may be drawn from: what is written from them is fit data too.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from bench.curation.sets import SETS, read_jsonl, write_jsonl

REAL = SETS / "real"
FIT_FILES = ("q1", "q2", "q8", "q9", "q10", "q11", "q12", "q13")


def used_originals() -> set[str]:
    """Notes a change or a later turn has been written from already."""
    used: set[str] = set()
    for path in [*REAL.glob("p*-planted.jsonl"), *REAL.glob("f*-followups.jsonl")]:
        used.update(row["original_id"] for row in read_jsonl(path))
    return used


def draw(files: list[str], count: int, seed: int) -> list[dict]:
    wrong = [name for name in files if name not in FIT_FILES]
    if wrong:
        raise SystemExit(f"not fit-split note files: {', '.join(wrong)} (fit: {', '.join(FIT_FILES)})")
    used = used_originals()
    fine = [
        row
        for name in files
        for row in read_jsonl(REAL / f"{name}-notes.jsonl")
        if row["label"] == "fine" and row["id"] not in used
    ]
    fine.sort(key=lambda row: row["id"])
    chosen = random.Random(seed).sample(fine, min(count, len(fine)))
    return [{"id": row["id"], "text": row["text"], "at": row["at"]} for row in chosen]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", nargs="+", required=True, help="fit-split q-files, e.g. q8 q11 q13")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args(argv)
    rows = draw(args.files, args.count, args.seed)
    write_jsonl(args.out, rows)
    print(f"{len(rows)} fine notes from {', '.join(args.files)} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
