"""Fit the note quality model on the real notes' fit split, and score it on every file.

    .venv/bin/python -m bench.curation.fit_quality            # score the weights in the product
    .venv/bin/python -m bench.curation.fit_quality --write    # refit, write note_quality_weights.json

The model (engine/judgments/note_quality.py) is a logistic regression over a note's E5 vector; a
note is flagged when its likelihood of being anything but ``fine`` reaches ``FLAG_AT``. Only the
fit split of bench/curation/sets/real/q*-notes.jsonl is fitted on (eight authors, five sources),
and every choice is made on it alone, leaving one source (all its files) out at a time so that each
choice is judged on a source and authors it was not fitted on, as the held split will be:

* ``C`` (the regularisation): the best mean area under the ROC curve over the left-out sources;
* ``FLAG_AT``: the likelihood above which at most ``TARGET_FINE_FLAGGED`` of the fit split's
  ``fine`` notes lie, in those left-out predictions (a reviewer's queue must not fill with notes
  worth keeping).

Then the weights are fitted on the whole fit split. The held files are scored, never fitted on.
``--curve`` adds the learning curve: the held recall and fine flagged when fitted on a seeded
share of the fit rows. Deterministic: Newton steps to the optimum (not a solver's stopping point),
seeded draws. CPU, about two minutes (embedding ~3,000 notes).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.curation import sets
from bench.curation.fit import logistic_optimum as fit
from bench.curation.quality_real import SPLIT

TARGET_FINE_FLAGGED = 0.03
# The fit files' sources: a source's files are left out together (sets/real/README.md).
SOURCE = {
    "q1": "locomo",
    "q13": "locomo",
    "q2": "kdconv film + travel",
    "q10": "kdconv film + travel",
    "q8": "esconv",
    "q11": "esconv",
    "q9": "smile",
    "q12": "smile",
}
C_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
CURVE = (0.25, 0.5, 1.0)
SEED = 20261204
MODEL = "note_quality"  # engine/judgments/note_quality_weights.json


def load() -> dict[str, tuple[list[dict], np.ndarray, np.ndarray]]:
    """Author → (rows, E5 vectors, is-not-fine) for every labelled notes file."""
    from engine.judgments.note_vectors import vectors

    out = {}
    for author in SPLIT:
        rows = sets.read_jsonl(sets.SETS / "real" / f"{author}-notes.jsonl")
        out[author] = (rows, vectors([r["text"] for r in rows]), np.array([r["label"] != "fine" for r in rows]))
    return out


def left_out(data: dict, authors: list[str], c: float) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Each fit source's rows scored by a model fitted on the other sources' files."""
    from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped]

    scores, labels, aucs = [], [], []
    for source in sorted({SOURCE[a] for a in authors}):
        out = [a for a in authors if SOURCE[a] == source]
        rest = [a for a in authors if SOURCE[a] != source]
        model = fit(np.vstack([data[a][1] for a in rest]), np.concatenate([data[a][2] for a in rest]), c)
        x, y = np.vstack([data[a][1] for a in out]), np.concatenate([data[a][2] for a in out])
        p = model.predict_proba(x)[:, 1]
        scores.append(p)
        labels.append(y)
        if 0 < y.sum() < len(p):
            aucs.append(float(roc_auc_score(y, p)))
    return np.concatenate(scores), np.concatenate(labels), aucs


def flag_at(p: np.ndarray, y: np.ndarray) -> float:
    """The lowest likelihood with at most TARGET_FINE_FLAGGED of the fine notes at or above it."""
    return float(np.quantile(p[~y], 1 - TARGET_FINE_FLAGGED, method="higher")) + 1e-6


def table(data: dict, likelihood, threshold: float) -> list[str]:
    from sklearn.metrics import roc_auc_score

    lines = [
        f"{'file':4} {'split':5} {'lang':4} {'notes':>5} | {'low':>4} {'recall':>6} | {'fine':>4} {'flagged':>7} | {'AUC':>5}"
    ]
    for author, (rows, x, y) in data.items():
        p = likelihood(x)
        auc = f"{roc_auc_score(y, p):5.3f}" if 0 < y.sum() < len(y) else "    —"
        recall = (p[y] >= threshold).mean() if y.any() else 0.0
        lines.append(
            f"{author:4} {SPLIT[author]:5} {rows[0]['lang']:4} {len(rows):5} | {int(y.sum()):4} {recall:6.3f} | "
            f"{int((~y).sum()):4} {(p[~y] >= threshold).mean():7.3f} | {auc}"
        )
    held = [a for a in data if SPLIT[a] == "held"]
    y = np.concatenate([data[a][2] for a in held])
    p = np.concatenate([likelihood(data[a][1]) for a in held])
    lines.append(
        f"held, all: low recall {(p[y] >= threshold).mean():.3f}, fine flagged {(p[~y] >= threshold).mean():.3f}"
    )
    return lines


def write(model, c: float, threshold: float) -> Path:
    from engine.judgments import fitted

    return fitted.write(
        MODEL,
        model.coef_[0],
        model.intercept_[0],
        how="python -m bench.curation.fit_quality --write: fitted on bench/curation/sets/real's fit split; "
        f"FLAG_AT holds at most {TARGET_FINE_FLAGGED:.0%} of the fit split's fine notes in left-out sources",
        C=c,
        FLAG_AT=round(threshold, 4),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="refit and write note_quality_weights.json")
    parser.add_argument("--curve", action="store_true", help="also print the learning curve")
    args = parser.parse_args(argv)
    from engine.judgments import note_quality

    data = load()
    fit_authors = [a for a in data if SPLIT[a] == "fit"]
    if args.write:
        by_c = {c: left_out(data, fit_authors, c) for c in C_GRID}
        for c, (_, _, aucs) in by_c.items():
            print(f"C {c:5}: left-out-source AUC {np.mean(aucs):.3f} ({', '.join(f'{a:.2f}' for a in aucs)})")
        c = max(C_GRID, key=lambda k: np.mean(by_c[k][2]))
        threshold = flag_at(*by_c[c][:2])
        x = np.vstack([data[a][1] for a in fit_authors])
        y = np.concatenate([data[a][2] for a in fit_authors])
        print(f"wrote {write(fit(x, y, c), c, threshold).name}: C {c}, FLAG_AT {threshold:.4f}")
        import importlib

        importlib.reload(note_quality)
    print("\n".join(table(data, note_quality.likelihoods_of, note_quality.FLAG_AT)))
    if args.curve:
        print(curve(data, fit_authors))
    return 0


def curve(data: dict, fit_authors: list[str]) -> str:
    """Held recall / fine flagged when fitted on a seeded share of every fit file's rows (C and FLAG_AT as shipped)."""
    from engine.judgments import note_quality as shipped

    c = shipped.MODEL.chosen["C"]
    held = [a for a in data if SPLIT[a] == "held"]
    hx, hy = np.vstack([data[a][1] for a in held]), np.concatenate([data[a][2] for a in held])
    lines = ["share of fit rows | rows | held low recall | held fine flagged"]
    for share in CURVE:
        rng = np.random.default_rng(SEED)
        picks = [rng.permutation(len(data[a][2]))[: int(len(data[a][2]) * share)] for a in fit_authors]
        x = np.vstack([data[a][1][i] for a, i in zip(fit_authors, picks, strict=True)])
        y = np.concatenate([data[a][2][i] for a, i in zip(fit_authors, picks, strict=True)])
        p = fit(x, y, c).predict_proba(hx)[:, 1]
        lines.append(
            f"{share:17.2f} | {len(y):4} | {(p[hy] >= shipped.FLAG_AT).mean():15.3f} | {(p[~hy] >= shipped.FLAG_AT).mean():.3f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
