"""The change model as shipped: its weights are fitted, and a change outranks cue words that change nothing."""

from __future__ import annotations

import numpy as np

from engine.judgments import change_note


def test_the_shipped_weights_are_a_fitted_model():
    weights = change_note.MODEL.weights
    assert weights.shape == (384,) and np.abs(weights).max() > 0.1  # not the placeholder of zeros


def test_a_change_said_in_other_words_scores_above_now_actually_and_already_that_change_nothing():
    changes = [
        "Priya: I sold the Civic last week, so it's the bus for me until the new bike arrives.",
        "Priya: Big news, I handed in my notice at the hospital and on Monday I start teaching at a primary school.",
        "用户: 跟你说个事，我上个月从银行辞职了，下周去杭州一家公司上班。",
    ]
    kept_true = [
        "Sam: Now that the season has started, the under-12s are actually playing really well, I'm so proud of them!",
        "Priya: Mia is actually doing well with the violin now, she practises every evening.",
        "用户: 豆豆现在其实已经很胖了，还是每天要吃三顿。",
    ]
    says = change_note.says_change(changes + kept_true)
    assert min(says[:3]) > max(says[3:]) + 0.1, says


def test_the_ranking_rises_with_either_reading():
    assert change_note.ranking(0.6, 0.9) > change_note.ranking(0.6, 0.5) > change_note.ranking(0.4, 0.5)
