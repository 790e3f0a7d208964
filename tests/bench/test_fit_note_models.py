"""The note models' refits reach the optimum itself, so a refit does not depend on the path a machine's
arithmetic takes (bench/curation/fit_quality.py, fit_change.py; docs/benchmarks.md, "The note
models refit to their optimum")."""

from __future__ import annotations

import numpy as np
import pytest

from bench.curation import fit_change, fit_quality


def _rows(seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    # Unit vectors in 384 dimensions, half of them nudged one way: like E5 vectors and a weak label.
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(600, 384)).astype(np.float32)
    y = rng.random(600) < 0.3
    x[y] += 0.15 * rng.normal(size=384).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True), y


@pytest.mark.parametrize("fit", [fit_quality.fit, fit_change.fit])
def test_the_fitted_weights_do_not_depend_on_the_order_of_the_rows(fit):
    x, y = _rows()
    order = np.random.default_rng(1).permutation(len(y))
    a, b = fit(x, y, 10.0), fit(x[order], y[order], 10.0)
    assert np.abs(a.coef_ - b.coef_).max() < 1e-6 and abs(a.intercept_[0] - b.intercept_[0]) < 1e-6
