"""Fitted weights as data: what a refit writes is what the product reads, rounded as documented."""

from __future__ import annotations

import numpy as np

from engine.judgments import change_note, fitted, note_quality


def test_a_written_model_reads_back_rounded_to_five_places_with_what_the_refit_chose(tmp_path, monkeypatch):
    monkeypatch.setattr(fitted, "FOLDER", tmp_path)
    written = fitted.write("probe", np.array([0.123456789, -2.0]), -0.333333333, how="a test", C=3.0, FLAG_AT=0.8)
    assert written == tmp_path / "probe_weights.json"
    model = fitted.load("probe")
    assert model.weights.tolist() == np.asarray([0.12346, -2.0], dtype=np.float32).tolist()
    assert model.bias == -0.33333 and model.chosen == {"C": 3.0, "FLAG_AT": 0.8}


def test_the_shipped_models_say_how_they_were_fitted():
    assert note_quality.MODEL.chosen.keys() == {"C", "FLAG_AT"} and change_note.MODEL.chosen.keys() == {"C"}
    assert all(p.exists() for p in (fitted.path("note_quality"), fitted.path("change_note")))
