"""A fitted model's numbers are data: a JSON file beside the code that reads them.

Only the model's refit command writes the file (bench/curation/fit_quality.py, fit_change.py);
the product reads it once, at import. Weights are rounded to five places as written, so a refit
shows in ``git diff`` as the numbers that moved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FOLDER = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Logistic:
    """A logistic model's weights and bias, and what its refit chose beside them (C, a threshold)."""

    weights: np.ndarray
    bias: float
    chosen: dict[str, float]


def path(name: str) -> Path:
    return FOLDER / f"{name}_weights.json"


def load(name: str) -> Logistic:
    data = json.loads(path(name).read_text(encoding="utf-8"))
    return Logistic(np.asarray(data["weights"], dtype=np.float32), float(data["bias"]), data["chosen"])


def write(name: str, weights, bias: float, *, how: str, **chosen: float) -> Path:
    """Write ``name``'s weights; ``how`` says which command fitted them on what."""
    data = {
        "how": how,
        "chosen": chosen,
        "bias": round(float(bias), 5),
        "weights": [round(float(w), 5) for w in weights],
    }
    target = path(name)
    target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return target
