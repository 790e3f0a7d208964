"""Draw the pairs annotators label from a store's candidates (bench/curation/candidates.py).

    .venv/bin/python -m bench.curation.sample DIR STORE LANG AUTHOR N [--seed 7]

Writes ``DIR/AUTHOR-input.jsonl`` (what the annotator sees: id, the two notes and their days;
never a score) and ``DIR/AUTHOR-key.jsonl`` (the id's candidate pair and how the pair was drawn).
A real store's candidates are almost never changes, so a uniform sample alone would hold almost
none: a third of the rows is the judge-of-the-day's top by likelihood of a change, a third its
other "conflict" / "ask" pairs, a third uniform over every candidate. The draw is recorded per
row (``drawn``) so that figures can be weighted back to the store's own distribution.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("store")
    parser.add_argument("lang", choices=("en", "zh"))
    parser.add_argument("author")
    parser.add_argument("n", type=int)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--exclude", nargs="*", default=[], help="key files whose pairs are taken already")
    args = parser.parse_args(argv)
    folder = Path(args.dir)
    rng = random.Random(f"{args.seed}-{args.author}")
    taken = {row["pair"] for name in args.exclude for row in read(Path(name))}
    judged = {row["id"]: row for row in read(folder / f"{args.store}-judged.jsonl")}
    pool = [
        c for c in read(folder / f"{args.store}-candidates.jsonl") if c["lang"] == args.lang and c["id"] not in taken
    ]
    third = args.n // 3
    by_change = sorted(pool, key=lambda c: -(judged[c["id"]]["change"] or 0.0))
    chosen: dict[str, str] = {c["id"]: "top" for c in by_change[:third]}
    proposed = [c for c in pool if c["id"] not in chosen and judged[c["id"]]["action"] in ("conflict", "ask")]
    for c in rng.sample(proposed, min(third, len(proposed))):
        chosen[c["id"]] = "proposed"
    rest = [c for c in pool if c["id"] not in chosen]
    for c in rng.sample(rest, min(args.n - len(chosen), len(rest))):
        chosen[c["id"]] = "uniform"
    rows = [c for c in pool if c["id"] in chosen]
    rng.shuffle(rows)
    inputs, keys = [], []
    for i, c in enumerate(rows, 1):
        rid = f"{args.author}-{i:04d}"
        inputs.append({"id": rid, "a": c["a"], "a_at": c["a_at"], "b": c["b"], "b_at": c["b_at"]})
        keys.append(
            {
                "id": rid,
                "pair": c["id"],
                "store": args.store,
                "lang": c["lang"],
                "similarity": c["similarity"],
                "drawn": chosen[c["id"]],
                "pool": len(pool),
            }
        )
    for name, data in (("input", inputs), ("key", keys)):
        (folder / f"{args.author}-{name}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data), encoding="utf-8"
        )
    print(f"{args.author}: {len(rows)} pairs from {len(pool)} {args.lang} candidates of {args.store}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
