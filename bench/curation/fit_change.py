"""Fit the change model on the fit split's planted changes, later turns and real notes; score each fold.

    .venv/bin/python -m bench.curation.fit_change            # score the weights in the product
    .venv/bin/python -m bench.curation.fit_change --write    # refit, write change_note_weights.json
    .venv/bin/python -m bench.curation.fit_change --curve DIR   # and the learning curve (rank_real's DIR)

The model (engine/judgments/change_note.py) is a logistic regression over a note's E5 vector: does
the note say that a fact changed? Only the fit split of bench/curation/sets/real is read:

* **a change**: the planted changes p0 (the fit store), p3, p4 and p5 (fit-split notes);
* **not a change**: every real note of the fit split's q-files (chat turns, whatever their
  quality label) and the later turns f3, f4 and f5 that keep their note true — written by other
  annotators from the same notes as p3–p5, so that the model cannot tell a change from chat by who
  wrote it.
* **in the final fit only**: p6 and p7 (120 changes, en and zh) with f6 and f7 (120 later turns),
  written later from fine notes of the same q-files (``LAST``); left out of the folds that choose
  ``C``, where a left-out fold's notes would meet their own changes.

``C`` is chosen leaving one writer of changes out at a time (p3, p4, p5 with the notes they were
drawn from and the later turns of those notes): the best mean area under the ROC curve of the
left-out changes against the left-out chat turns and later turns. Then the weights are fitted on
everything. The held stores' planted changes (p1, p2) are never read here: the ranking they meet
is measured by ``python -m bench.curation.rank_real --pairs DIR --held``. Deterministic (Newton
steps to the optimum), CPU, about three minutes (embedding ~3,000 texts).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.curation import sets
from bench.curation.fit import logistic_optimum as fit

REAL = sets.SETS / "real"
# Each writer of changes left out with the fit-split notes they were drawn from (sets/real/README.md).
FOLDS = {"p3": ("q8", "q11", "q13"), "p4": ("q9", "q12"), "p5": ("q1", "q2", "q10")}
ALWAYS = "p0"  # the fit store's planted changes: fitted on in every fold
# Written later from fine notes of the folds' files (sets/real/README.md): in the final fit only, so
# that no left-out fold's notes meet their own changes while C is chosen.
LAST = {"p6": "f6", "p7": "f7"}
C_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)
CURVE = (0.25, 0.5, 1.0)
SEED = 20261203
MODEL = "change_note"  # engine/judgments/change_note_weights.json


def texts() -> dict[str, tuple[list[str], list[str], list[str]]]:
    """Fold → (changes, chat turns, later turns that keep a note true); ``ALWAYS`` holds changes alone."""
    out: dict[str, tuple[list[str], list[str], list[str]]] = {
        ALWAYS: ([r["change"] for r in sets.read_jsonl(REAL / f"{ALWAYS}-planted.jsonl")], [], [])
    }
    for writer, notes in FOLDS.items():
        changes = [r["change"] for r in sets.read_jsonl(REAL / f"{writer}-planted.jsonl")]
        chat = [r["text"] for q in notes for r in sets.read_jsonl(REAL / f"{q}-notes.jsonl")]
        later = [r["later"] for r in sets.read_jsonl(REAL / f"f{writer[1:]}-followups.jsonl")]
        out[writer] = (changes, chat, later)
    return out


def load() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Fold → (E5 vectors, is-a-change, is-a-later-turn)."""
    from engine.judgments.note_vectors import vectors

    data = {}
    for fold, (changes, chat, later) in texts().items():
        kinds = np.r_[np.full(len(changes), 0), np.full(len(chat), 1), np.full(len(later), 2)]
        data[fold] = (vectors(changes + chat + later), kinds == 0, kinds == 2)
    return data


def last_rows() -> tuple[np.ndarray, np.ndarray]:
    """``LAST``'s changes and later turns: (E5 vectors, is-a-change)."""
    from engine.judgments.note_vectors import vectors

    changes = [r["change"] for w in LAST for r in sets.read_jsonl(REAL / f"{w}-planted.jsonl")]
    later = [r["later"] for f in LAST.values() for r in sets.read_jsonl(REAL / f"{f}-followups.jsonl")]
    return vectors(changes + later), np.r_[np.ones(len(changes), bool), np.zeros(len(later), bool)]


def left_out(data: dict, c: float, *, later_only: bool = False) -> dict[str, float]:
    """Each writer's changes against their notes and later turns (``later_only``: the later turns
    alone, the hard half), scored by a model fitted without them."""
    from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped]

    aucs = {}
    for fold in FOLDS:
        rest = [f for f in data if f != fold]
        model = fit(np.vstack([data[f][0] for f in rest]), np.concatenate([data[f][1] for f in rest]), c)
        x, y, later = data[fold]
        keep = y | later if later_only else np.ones(len(y), dtype=bool)
        aucs[fold] = float(roc_auc_score(y[keep], model.predict_proba(x[keep])[:, 1]))
    return aucs


def write(model, c: float) -> Path:
    from engine.judgments import fitted

    return fitted.write(
        MODEL,
        model.coef_[0],
        model.intercept_[0],
        how="python -m bench.curation.fit_change --write: fitted on bench/curation/sets/real's fit split; "
        "C chosen leaving one writer of changes out at a time",
        C=c,
    )


def table(data: dict, likelihood) -> list[str]:
    from sklearn.metrics import roc_auc_score

    lines = [f"{'fold':5} {'changes':>7} {'other':>5} | {'AUC':>5} | {'changes above the 98th % of the other':>38}"]
    for fold, (x, y, _) in data.items():
        p = likelihood(x)
        if y.all():
            lines.append(f"{fold:5} {int(y.sum()):7} {0:5} |     — |")
            continue
        top = np.quantile(p[~y], 0.98)
        auc = roc_auc_score(y, p)
        lines.append(f"{fold:5} {int(y.sum()):7} {int((~y).sum()):5} | {auc:5.3f} | {(p[y] > top).mean():38.2f}")
    return lines


def curve(data: dict, pairs: Path) -> list[str]:
    """The held stores' nights (bench/curation/rank_real.py) with weights fitted on a seeded share
    of every fold's rows (C as shipped): what more written data bought."""
    from bench.curation import rank_real
    from bench.curation.fit_real import HELD_STORES
    from engine.judgments import change_note

    c = change_note.MODEL.chosen["C"]
    stores = {name: rank_real.load(pairs, name) for name in HELD_STORES}
    vectors = {name: np.load(pairs / f"{name}-e5.npy") for name in HELD_STORES}
    lines = ["share | changes | rows | " + " | ".join(f"{name}: planted@25 / @75, true@75" for name in stores)]
    for share in CURVE:
        rng = np.random.default_rng(SEED)
        picks = {f: rng.permutation(len(y))[: max(1, int(len(y) * share))] for f, (_, y, _) in data.items()}
        x = np.vstack([data[f][0][i] for f, i in picks.items()])
        y = np.concatenate([data[f][1][i] for f, i in picks.items()])
        model = fit(x, y, c)
        cells = []
        for name, store in stores.items():
            says = model.predict_proba(vectors[name])[:, 1]
            rank = np.array([change_note.ranking(a, b) for a, b in zip(store["change"], says, strict=True)])
            got = rank_real.outcome(store, rank_real.nights(store, rank, store["asked"] & store["nearest"]))
            cells.append(f"{got['planted@25']} / {got['planted@75']}, {got['true@75']}")
        lines.append(f"{share:5.2f} | {int(y.sum()):7} | {len(y):4} | " + " | ".join(cells))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="refit and write change_note_weights.json")
    parser.add_argument(
        "--curve",
        type=Path,
        metavar="DIR",
        help="the learning curve on the held stores' sweep pairs in DIR (rank_real)",
    )
    args = parser.parse_args(argv)
    from engine.judgments import change_note

    data = load()
    if args.write:
        by_c = {c: left_out(data, c) for c in C_GRID}
        for c, aucs in by_c.items():
            print(
                f"C {c:4}: left-out AUC {np.mean(list(aucs.values())):.3f} ({', '.join(f'{k} {a:.3f}' for k, a in aucs.items())})"
            )
        c = max(C_GRID, key=lambda k: np.mean(list(by_c[k].values())))
        hard = left_out(data, c, later_only=True)
        print(f"C {c:4}, changes against the later turns alone: {', '.join(f'{k} {a:.3f}' for k, a in hard.items())}")
        last = last_rows()
        x = np.vstack([*(d[0] for d in data.values()), last[0]])
        y = np.concatenate([*(d[1] for d in data.values()), last[1]])
        print(f"wrote {write(fit(x, y, c), c).name}: C {c}")
        import importlib

        importlib.reload(change_note)
    print("in the product's weights (fitted on every fold):")
    print("\n".join(table(data, change_note.likelihoods_of)))
    if args.curve:
        from bench.curation.replay import setup

        setup("offline", "")
        print("\n".join(curve(data, args.curve)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
