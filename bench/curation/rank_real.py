"""What three nights of the sweep would show a person on real stores, measured without a database.

    KDCONV_DATA=… .venv/bin/python -m bench.curation.sweep_pairs STORE --out /tmp/sw   # each store, once
    .venv/bin/python -m bench.curation.rank_real --pairs /tmp/sw            # the fit store only
    .venv/bin/python -m bench.curation.rank_real --pairs /tmp/sw --held     # and the held stores

Three ways to choose tonight's cards from every pair the sweep weighs (bench/curation/sweep_pairs.py):

* **before**: every pair the judge asks about or opens, likeliest change first;
* **nearest** (what the sweep does, engine/maintenance/pair_sweep.py ``nearest_older``): the same,
  each newer note weighed only beside its nearest older note (stored cosine plus shared words);
* **change model** (what the sweep does since 2026-12-03, night): the nearest pairs the judge asks
  about or opens, ordered by the judge's change likelihood and the change model's reading of the
  newer note together (engine/judgments/change_note.py ``ranking``); its weights never saw the
  held stores (bench/curation/fit_change.py);
* **ranker** (tried, not shipped): the nearest pairs ordered by a logistic model over the judge's
  change likelihood and what tells a real store's pairs apart (bench/curation/rank_features.py),
  fitted (bench/curation/fit.py ``fit``: logistic, balanced classes) on the **fit store** only — its planted changes (p0) and the pairs its ``fit`` authors
  (r1, r3) labelled a change against every other pair. On the fit store it is measured by five
  folds over the planted changes (a fold ranked by weights fitted without it); on the held stores
  with weights fitted on the whole fit store.

The nights are simulated as the sweep runs them: each night the best-ranked pairs not yet shown,
``BUDGET`` of them, at most one card per note a night. ``planted@N``: planted changes among the
first N cards; ``true@N``: the share of those cards that join a planted change or two texts any
annotator labelled one change or one fact (never-labelled cards count as not true).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.curation import sets
from bench.curation.fit import fit, scores
from bench.curation.fit_real import FIT_STORE, HELD_STORES
from bench.curation.real_scale import known_labels

AUTHORS_FIT = ("r1", "r3")
BUDGET, NIGHTS = 25, 3
FOLDS = 5
SEED = 20261203


def fit_labels() -> dict[tuple[str, str], str]:
    labels: dict[tuple[str, str], str] = {}
    for author in AUTHORS_FIT:
        for row in sets.read_jsonl(sets.SETS / "real" / f"{author}-pairs.jsonl"):
            labels[(row["a"], row["b"])] = row["label"]
    return labels


def load(folder: Path, store: str) -> dict:
    """The store's sweep pairs with the judge's guess and the ranker's features, cached beside them."""
    from bench.curation import rank_features
    from engine.judgments import change_note, triage
    from engine.judgments.pair_judge import judge
    from engine.maintenance.pair_sweep import nearest_older

    cache = folder / f"{store}-features.json"
    rows = sets.read_jsonl(folder / f"{store}-sweep.jsonl")
    if cache.exists():
        data = json.loads(cache.read_text())
    else:
        started = time.monotonic()
        feats, asked, change = [], [], []
        for r in rows:
            older = SimpleNamespace(content=r["a"], subjects=r["a_subjects"])
            judged = triage.assess(older, r["b"], r["similarity"], subjects=r["b_subjects"])  # type: ignore[arg-type]
            guess = judged.guess or judge(r["a"], r["b"], similarity=r["similarity"])
            asked.append(judged.action in (triage.CONFLICT, triage.ASK))
            change.append(guess.change)
            feats.append(rank_features.features(r["a"], r["b"], guess))
        data = {"names": list(feats[0]), "x": [list(f.values()) for f in feats], "asked": asked, "change": change}
        cache.write_text(json.dumps(data))
        print(f"  {store}: {len(rows)} pairs read in {time.monotonic() - started:.0f} s", flush=True)
    e5 = folder / f"{store}-e5.npy"  # the newer notes' vectors, for the change model
    if not e5.exists():
        from engine.judgments.note_vectors import vectors

        np.save(e5, vectors([r["b"] for r in rows]))
    everyone, mine = known_labels(), fit_labels() if store == FIT_STORE else {}
    label = [everyone.get((r["a"], r["b"])) or everyone.get((r["b"], r["a"])) for r in rows]
    notes = {key: SimpleNamespace(pk=key) for r in rows for key in (r["older"], r["newer"])}
    sweep_pairs = [(notes[r["older"]], notes[r["newer"]], r["similarity"], r["nearness"]) for r in rows]
    nearest = {(older.pk, newer.pk) for older, newer, _ in nearest_older(sweep_pairs)}  # type: ignore[arg-type]
    return {
        "rows": rows,
        "notes": len(notes),
        "names": data["names"],
        "x": np.array(data["x"], dtype=float),
        "asked": np.array(data["asked"]),
        "change": np.array(data["change"]),
        "says": change_note.likelihoods_of(np.load(e5)),
        "nearest": np.array([(r["older"], r["newer"]) in nearest for r in rows]),
        "planted": np.array([bool(r["planted"]) for r in rows]),
        "true": np.array(
            [bool(r["planted"]) or lab in ("contradiction", "duplicate") for r, lab in zip(rows, label, strict=True)]
        ),
        "positive": np.array([bool(r["planted"]) or mine.get((r["a"], r["b"])) == "contradiction" for r in rows]),
    }


def nights(store: dict, score: np.ndarray, eligible: np.ndarray) -> list[int]:
    """The pairs shown, in the order the nights open them."""
    order = np.argsort(-score, kind="stable")
    shown: list[int] = []
    taken: set[int] = set()
    for _ in range(NIGHTS):
        carded: set[str] = set()
        opened = 0
        for i in order:
            if opened >= BUDGET:
                break
            if i in taken or not eligible[i]:
                continue
            r = store["rows"][i]
            if r["older"] in carded or r["newer"] in carded:
                continue
            taken.add(int(i))
            shown.append(int(i))
            carded |= {r["older"], r["newer"]}
            opened += 1
    return shown


def outcome(store: dict, shown: list[int], planted: np.ndarray | None = None) -> dict:
    planted = store["planted"] if planted is None else planted
    out: dict[str, object] = {"planted": int(planted.sum())}
    for n in (10, 25, 50, 75):
        first = shown[:n]
        out[f"planted@{n}"] = int(planted[first].sum())
        out[f"true@{n}"] = round(float(store["true"][first].mean()), 3) if first else None
    return out


def cross_validate(store: dict) -> dict:
    """Each fold's planted changes ranked by weights fitted without them; the folds' cards summed."""
    names, x, y = store["names"], store["x"], store["positive"]
    rng = np.random.default_rng(SEED)
    folds = np.array_split(rng.permutation(np.flatnonzero(store["planted"])), FOLDS)
    total = {"planted": 0, "planted@25": 0, "planted@75": 0}
    for fold in folds:
        train = np.ones(len(y), dtype=bool)
        train[fold] = False
        weights = fit(x[train], y[train], names)
        keep = train & ~store["planted"]
        keep[fold] = True  # only this fold's planted changes are in the store: the others were fitted on
        mask = np.zeros(len(y), dtype=bool)
        mask[fold] = True
        got = outcome(store, nights(store, scores(x, names, weights), store["asked"] & store["nearest"] & keep), mask)
        for key in total:
            total[key] += int(got[key])
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=Path, required=True, help="folder of bench/curation/sweep_pairs.py output")
    parser.add_argument("--held", action="store_true", help="measure the held stores too")
    args = parser.parse_args(argv)

    from bench.curation.replay import setup

    setup("offline", "")
    from engine.judgments import change_note

    fit_store = load(args.pairs, FIT_STORE)
    weights = fit(fit_store["x"], fit_store["positive"], fit_store["names"])
    print(f"ranker fitted on the fit store: {weights}")
    for name in (FIT_STORE, *(HELD_STORES if args.held else ())):
        store = fit_store if name == FIT_STORE else load(args.pairs, name)
        print(
            f"{name}: {store['notes']} notes, {len(store['rows'])} pairs, {int(store['planted'].sum())} planted among them"
        )
        print(f"  before:  {outcome(store, nights(store, store['change'], store['asked']))}")
        print(f"  nearest: {outcome(store, nights(store, store['change'], store['asked'] & store['nearest']))}")
        both = np.array([change_note.ranking(c, p) for c, p in zip(store["change"], store["says"], strict=True)])
        print(f"  change model: {outcome(store, nights(store, both, store['asked'] & store['nearest']))}")
        if name == FIT_STORE:
            print(f"  ranker, {FOLDS} folds: {cross_validate(store)}")
        else:
            score = scores(store["x"], store["names"], weights)
            print(f"  ranker:  {outcome(store, nights(store, score, store['asked'] & store['nearest']))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
