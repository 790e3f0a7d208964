"""The curation evaluation's sets: blind authors split into tuning and held out, labels a person decides."""

from __future__ import annotations

import numpy as np

from bench.curation import fit, sets

PAIR_LABELS = {"contradiction", "duplicate", "compatible", "unrelated"}
NOTE_LABELS = {"fine", *sets.LOW_LABELS}


def test_every_blind_set_is_there_with_its_split_and_the_labels_a_person_decides():
    pairs = sets.pairs(("tune", "held"))
    notes = sets.notes(("tune", "held"))
    assert {r["set"] for r in pairs} == {"w1", "w2", "w3"} and len(pairs) >= 1000
    assert {r["set"] for r in notes} == {"n1", "n2"} and len(notes) >= 600
    assert {r["label"] for r in pairs} == PAIR_LABELS
    assert {r["label"] for r in notes} == NOTE_LABELS
    assert {r["lang"] for r in pairs + notes} == {"en", "zh", "mixed"}
    for rows in (pairs, notes):
        keys = [(r["set"], r["id"]) for r in rows]
        assert len(keys) == len(set(keys))
    held = {r["set"] for r in pairs + notes if r["split"] == "held"}
    assert held == {"w3", "n2"}  # other authors, other conversations than the tuning ones


def test_the_developers_labels_are_normalised_to_the_same_four_decisions():
    assert {r["label"] for r in sets.pairs(("dev",))} == PAIR_LABELS


def test_the_planted_changes_name_the_real_notes_they_change():
    planted = sets.planted()
    assert len(planted) == 20 and all(p["original"] and p["change"] and p["original"] != p["change"] for p in planted)


def test_thresholds_are_chosen_on_the_scores_given():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.2, 0.1])
    labels = np.array([1, 1, 0, 1, 0, 0])
    assert fit.precision_threshold(scores, labels, 0.75) == 0.6  # 3 of the 4 at or above 0.6 are right
    assert fit.reach_threshold(scores, labels, 2 / 3) == 0.8  # two of the three positives lie at or above


def test_the_real_store_sets_are_whole_one_author_each_and_split_as_documented():
    from bench.curation import fit_real

    real = sets.SETS / "real"
    for author, split in fit_real.AUTHORS.items():
        rows = sets.read_jsonl(real / f"{author}-pairs.jsonl")
        assert len(rows) == 720, author
        assert {r["id"].split("-")[0] for r in rows} == {author}
        assert {r["label"] for r in rows} <= {"contradiction", "duplicate", "compatible", "unrelated"}
        assert len({r["pair"] for r in rows}) == 720  # no pair drawn twice
        assert (
            f"| {author}-pairs.jsonl | {author} |" in (real / "README.md").read_text()
            and split in fit_real.AUTHORS.values()
        )
    held_stores = {
        r["store"]
        for a, s in fit_real.AUTHORS.items()
        if s == "held"
        for r in sets.read_jsonl(real / f"{a}-pairs.jsonl")
    }
    assert fit_real.FIT_STORE not in held_stores  # the held split never shares a store with the fit split
    for author in fit_real.PLANTED:
        planted = sets.read_jsonl(real / f"{author}-planted.jsonl")
        assert len(planted) >= 24 and all(p["original"] and p["change"] != p["original"] for p in planted)


def test_the_real_notes_are_whole_one_author_and_source_each_and_the_held_ones_come_from_held_stores():
    from bench.curation import fit_real, quality_real

    real = sets.SETS / "real"
    readme = (real / "README.md").read_text()
    for author, split in quality_real.SPLIT.items():
        rows = sets.read_jsonl(real / f"{author}-notes.jsonl")
        assert len(rows) >= 150 and {r["author"] for r in rows} == {author}
        assert {r["label"] for r in rows} <= NOTE_LABELS
        assert len({r["lang"] for r in rows}) == 1 and len({r["source"].split()[0] for r in rows}) == 1
        assert len({r["text"] for r in rows}) >= len(rows) - 5  # a uniform draw: a chat repeats itself rarely
        # fit notes: the fit store's, or public chat no store is built from (store "")
        stores = fit_real.HELD_STORES if split == "held" else (fit_real.FIT_STORE, "")
        assert all(r["store"] in stores for r in rows), author
        assert f"| {author}-notes.jsonl | {author} |" in readme and f"| {split} |" in readme


def test_fine_notes_are_drawn_from_the_fit_split_only_and_never_twice_for_a_writer():
    import pytest

    from bench.curation import draw_fine

    drawn = draw_fine.draw(["q1", "q8"], 50, seed=7)
    assert drawn == draw_fine.draw(["q1", "q8"], 50, seed=7)  # seeded
    assert len(drawn) == 50 and {r["id"].split("-")[0] for r in drawn} <= {"q1", "q8"}
    fine = {
        r["id"]
        for name in ("q1", "q8")
        for r in sets.read_jsonl(draw_fine.REAL / f"{name}-notes.jsonl")
        if r["label"] == "fine"
    }
    assert {r["id"] for r in drawn} <= fine - draw_fine.used_originals()
    with pytest.raises(SystemExit, match="q3"):
        draw_fine.draw(["q3"], 5, seed=7)  # a held file: what is written from it would be fit data
