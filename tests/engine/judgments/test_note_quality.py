"""The note quality model as shipped: its weights are fitted and it reads meaning, in both languages."""

from __future__ import annotations

import numpy as np

from engine.judgments import note_quality


def test_the_shipped_weights_are_a_fitted_model_with_a_threshold_it_can_reach():
    weights = note_quality.MODEL.weights
    assert weights.shape == (384,) and np.abs(weights).max() > 0.1  # not the placeholder of zeros
    assert 0.5 < note_quality.FLAG_AT < 1.0


def test_chit_chat_scores_above_facts_about_named_people_in_english_and_chinese():
    chit_chat = [
        "Nate: Cool! I'll definitely check it out. Thanks for the recommendation!",
        "Wow, that is amazing news, I am so happy for you!",
        "乙: 嗯嗯，这部电影确实挺好看的，值得一看。",
    ]
    facts = [
        "My sister Ana moved to Lisbon in March.",
        "Melanie: I started pottery classes on Tuesdays last month.",
        "我女儿今年上小学一年级了。",
    ]
    p = note_quality.likelihoods_of(note_quality.vectors(chit_chat + facts))
    assert p[:3].min() > 0.6 and p[3:].max() < 0.4
    assert note_quality.little_to_keep(facts) == [False, False, False]
