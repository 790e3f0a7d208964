"""Link lift: the note linked from a strong match competes for the k slots."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.pipeline import FULL
from engine.retrieval.links import lift, link_paths
from engine.retrieval.search import search

from .conftest import QUERY, at_angle, link, put

pytestmark = pytest.mark.django_db


def both_ways(*pairs):
    """Links each pair both ways, as the conversation path links adjacent turns."""
    for a, b in pairs:
        link(a, b)
        link(b, a)


def distractors(agent, first_angle: float, step: float) -> None:
    """Six notes a little nearer the query than the answers below, linked to nothing."""
    for i in range(6):
        put(agent, f"Unrelated note number {i} about the weather.", at_angle(first_angle + step * i))


def harbour_matches(agent, pipeline):
    results = search("harbour", agent, limit=3, heat=False, ranking=pipeline, query_vector=QUERY)
    return [r.note for r in results if r.via == "match"]


def test_the_turn_after_a_strong_match_is_among_the_matches_at_a_small_limit(alice, store):
    question = put(alice, "Did you visit the harbour last week?", at_angle(5))
    # The answer shares no word with the query and is far from it in meaning.
    answer = put(alice, "Yes, we went on Saturday and ate fish.", at_angle(75))
    both_ways((question, answer))
    distractors(alice, 50, 3)
    # Without the lift the answer is the last of eight candidates: only the walk appends it, beyond k.
    assert answer not in harbour_matches(alice, replace(FULL, link_lift=0.0))
    assert harbour_matches(alice, FULL)[:2] == [question, answer]


def test_lift_passes_on_original_scores_only_between_candidates():
    scores = {"a": 1.0, "b": 0.1, "c": 0.05}
    pairs = [("a", "b"), ("b", "c"), ("a", "outside"), ("c", "a")]
    lifted = lift(scores, [pairs], [0.5])
    assert lifted["b"] == pytest.approx(0.6)  # its own + half of a's
    assert lifted["c"] < 0.1 and lifted["c"] == pytest.approx(0.1)  # half of b's original score, below b
    assert lifted["a"] == 1.0  # a weak neighbour never lifts a strong note
    assert "outside" not in lifted  # a note in neither pool is not brought in


def test_a_lifted_note_stays_below_the_note_lifting_it():
    lifted = lift({"hit": 0.03, "near": 0.016}, [[("hit", "near")]], [0.8])
    assert 0.016 < lifted["near"] < lifted["hit"] == 0.03


def test_only_eligible_notes_are_lifted():
    lifted = lift({"hit": 0.03, "far": 0.016}, [[("hit", "far")]], [0.8], eligible={"hit"})
    assert lifted["far"] == 0.016


def test_an_unrelated_linked_note_is_never_lifted_into_the_matches(alice, store):
    hit = put(alice, "The hit note about the harbour.", at_angle(0))
    near = put(alice, "Another note, fairly close.", at_angle(40))
    far = put(alice, "An unrelated note on baking.", at_angle(89))
    link(hit, far)
    results = search("harbour", alice, limit=2, heat=False, query_vector=QUERY)
    # The orthogonal note fails the walk's gate (cos < 0.25), so the lift leaves it last.
    assert [r.note for r in results if r.via == "match"] == [hit, near]


def test_link_paths_finds_direct_links_and_paths_of_two_in_one_query(alice, store, django_assert_num_queries):
    a, b, c, d = (put(alice, f"Turn {i} of the chat.", at_angle(10 * i)) for i in range(4))
    both_ways((a, b), (b, c), (c, d))
    ids = [str(n.pk) for n in (a, c, d)]  # b is not a candidate: a reaches c through it
    with django_assert_num_queries(1):
        direct, two = link_paths(ids)
    assert set(direct) == {(str(c.pk), str(d.pk)), (str(d.pk), str(c.pk))}
    assert set(two) == {(str(a.pk), str(c.pk)), (str(c.pk), str(a.pk))}


def test_the_turn_two_after_a_strong_match_gets_the_smaller_share():
    scores = {"hit": 1.0, "next": 0.1, "after": 0.1}
    lifted = lift(scores, [[("hit", "next")], [("hit", "after")]], [0.8, 0.5])
    assert lifted["next"] == pytest.approx(0.9) and lifted["after"] == pytest.approx(0.6)


def test_the_answer_two_turns_after_the_question_is_among_the_matches(alice, store):
    question = put(alice, "Did you visit the harbour last week?", at_angle(5))
    aside = put(alice, "Hold on, my phone is ringing.", at_angle(80))
    answer = put(alice, "Yes, we went on Saturday and ate fish.", at_angle(60))
    both_ways((question, aside), (aside, answer))
    distractors(alice, 50, 2)
    assert answer not in harbour_matches(alice, replace(FULL, link_lift_far=0.0))
    assert harbour_matches(alice, FULL)[:2] == [question, answer]
