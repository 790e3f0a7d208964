"""The contradiction rules alone on the labelled pairs (no database, no index): seconds, for tuning.

    .venv/bin/python -m bench.curation.rules [--split tune|held|all] [--show fp,fn]

Every pair is judged (A older, B newer), whatever its similarity, so this is stricter than the
write path, which only compares notes that resemble each other. The replay
(``python -m bench curation``) gives the product's figures.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.curation.replay import load
from engine.reading.contradiction_rules import contradiction


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="all", choices=("all", "tune", "held"))
    parser.add_argument("--show", default="", help="fp, fn or both (comma-separated)")
    args = parser.parse_args(argv)
    rows = [r for r in load("pairs.jsonl") if args.split == "all" or r["split"] == args.split]
    tp = fp = fn = 0
    rules: Counter = Counter()
    wrong: Counter = Counter()
    for row in rows:
        reason = contradiction(row["a"], row["b"])
        positive = row["label"] == "contradiction"
        if reason:
            rules[reason.split(":")[0]] += 1
        if reason and positive:
            tp += 1
        elif reason:
            fp += 1
            wrong[reason.split(":")[0]] += 1
            if "fp" in args.show:
                print(f"FP {row['label']:11} {reason!r}\n   {row['a']}\n   {row['b']}")
        elif positive:
            fn += 1
            if "fn" in args.show:
                print(f"FN {row['kind']:12} {row['a']}  //  {row['b']}")
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    print(f"{args.split}: {len(rows)} pairs, precision {p:.3f} recall {r:.3f} (tp {tp} fp {fp} fn {fn})")
    print("fired:", dict(rules), "wrong:", dict(wrong))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def duplicates(argv: list[str] | None = None) -> int:
    """The offline merge rule alone: which labels it would merge."""
    from engine.reading.same_statement import near_duplicate

    split = (argv or ["all"])[0]
    rows = [r for r in load("pairs.jsonl") if split == "all" or r["split"] == split]
    merged: Counter = Counter()
    total: Counter = Counter()
    for row in rows:
        total[row["label"]] += 1
        if near_duplicate(row["a"], row["b"]):
            merged[row["label"]] += 1
            if row["label"] not in ("duplicate", "paraphrase") and "-v" in (argv or []):
                print(f"WRONG {row['label']}: {row['a']} // {row['b']}")
    print(split, {k: f"{merged[k]}/{n}" for k, n in sorted(total.items())})
    return 0
