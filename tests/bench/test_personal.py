"""The personal stores (bench/personal_sets): whole, split as the README says, scored as documented."""

from __future__ import annotations

from bench import personal


def test_every_store_is_whole_and_split_by_author_and_language_as_documented():
    stores = personal.stores("all")
    assert {(s.author, s.lang, s.split) for s in stores} == {
        ("pe1", "en", "fit"),
        ("pe2", "en", "fit"),
        ("pz1", "zh", "fit"),
        ("pz2", "zh", "fit"),
        ("pe3", "en", "held"),
        ("pz3", "zh", "held"),
    }
    for store in stores:
        ids = {n["id"] for n in store.notes}
        assert len(store.notes) == 60 == len(ids), store.author
        assert len(store.messages) == 30, store.author
        assert all(set(m["gold"]) <= ids for m in store.messages), store.author
        assert sum(not m["gold"] for m in store.messages) == 3, store.author
    assert {s.author for s in personal.stores("held")} == {"pe3", "pz3"}


def test_a_message_scores_by_where_its_first_gold_note_stands():
    scores = personal.Scores()
    scores.add(["a", "b", "c", "d", "e", "f"], {"c", "f"})
    assert scores.hits == {1: 0, 3: 1, 5: 1}
    assert scores.all_at_5 == 0  # f stands sixth
    assert scores.reciprocal == 1 / 3
    scores.add(["x"], {"y"})  # nothing found: no hit, no reciprocal rank
    assert scores.asked == 2 and scores.hits[5] == 1 and scores.reciprocal == 1 / 3


def test_a_small_store_is_drawn_from_english_stores_and_asks_only_what_its_notes_answer():
    small = personal.small_stores(personal.stores("held"), 8)
    assert len(small) == personal.DRAWS  # pe3 only: the Chinese store has no dense vote to test
    assert small == personal.small_stores(personal.stores("held"), 8)  # seeded
    assert {s.author for s in small} == {"pe3"} and len({s.draw for s in small}) == personal.DRAWS  # an agent each
    for store in small:
        ids = {n["id"] for n in store.notes}
        assert len(ids) == 8 and store.messages
        assert all(m["gold"] and set(m["gold"]) <= ids for m in store.messages)


def test_a_setting_tried_from_the_command_line_keeps_the_type_the_setting_has():
    from types import SimpleNamespace

    from bench.pipeline import try_settings

    ranking = SimpleNamespace(context_span=2, link_lift=0.8)
    try_settings(ranking, ["context_span=0", "link_lift=0.5"])
    assert ranking.context_span == 0 and isinstance(ranking.context_span, int)
    assert ranking.link_lift == 0.5
