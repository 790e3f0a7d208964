"""Search provenance: matches, link results, similarity and rrf (B116–B127)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.pipeline import FULL
from engine.retrieval.search import search

from .conftest import QUERY, ScriptedDense, at_angle, link, put


@pytest.fixture
def hit_and_neighbour(alice, any_store):
    hit = put(alice, "The hit note about the harbour.", at_angle(0))
    neighbour = put(alice, "A neighbour note on sailing.", at_angle(60))
    link(hit, neighbour)
    return hit, neighbour


def test_a_linked_neighbour_carries_its_real_cosine(alice, hit_and_neighbour):  # B116
    hit, neighbour = hit_and_neighbour
    results = search("harbour", alice, limit=1, query_vector=QUERY)
    assert [r.note for r in results] == [hit, neighbour]
    assert results[1].similarity == pytest.approx(0.5, abs=1e-3)


def test_the_hit_is_a_match_and_the_neighbour_a_link(alice, hit_and_neighbour):  # B117
    results = search("harbour", alice, limit=1, query_vector=QUERY)
    assert [r.via for r in results] == ["match", "link"]


def test_all_matches_come_before_all_links(alice, any_store):  # B118
    a = put(alice, "First match about tides.", at_angle(0))
    b = put(alice, "Second match about tides.", at_angle(10))
    for i, source in enumerate((a, b, a)):
        target = put(alice, f"Linked note number {i} on ropes.", at_angle(50 + i))
        link(source, target)
    # Without the lift, which would rank a's neighbour just below a, as a match (test_link_lift.py).
    no_lift = replace(FULL, link_lift=0.0)
    vias = [r.via for r in search("tides", alice, limit=2, query_vector=QUERY, ranking=no_lift)]
    assert vias[:2] == ["match", "match"] and set(vias[2:]) == {"link"} and len(vias) == 5


def test_a_link_row_has_rrf_zero_and_a_match_a_positive_rrf(alice, hit_and_neighbour):  # B119
    match, linked = search("harbour", alice, limit=1, query_vector=QUERY)
    assert match.rrf > 0 and linked.rrf == 0


def test_a_linked_note_at_ninety_degrees_is_gated_out(alice, any_store):  # B120
    hit = put(alice, "The hit note about the harbour.", at_angle(0))
    link(hit, put(alice, "An unrelated note on baking.", at_angle(90)))
    assert [r.note for r in search("harbour", alice, limit=1, query_vector=QUERY)] == [hit]


def test_gate_zero_admits_the_orthogonal_note_with_similarity_zero(alice, any_store):  # B121
    hit = put(alice, "The hit note about the harbour.", at_angle(0))
    far = put(alice, "An unrelated note on baking.", at_angle(90))
    link(hit, far)
    results = search("harbour", alice, limit=1, link_min_sim=0, query_vector=QUERY)
    assert [(r.note, r.via) for r in results] == [(hit, "match"), (far, "link")]
    assert results[1].similarity == pytest.approx(0.0, abs=1e-6)


def test_with_links_off_only_matches_are_returned(alice, hit_and_neighbour):  # B122
    results = search("harbour", alice, limit=1, links=False, query_vector=QUERY)
    assert [r.via for r in results] == ["match"]


def test_a_bm25_only_match_reports_its_real_cosine(alice, store, swap_store):  # B123
    a = put(alice, "Alpha note on the harbour.", at_angle(0))
    b = put(alice, "Beta note on the lighthouse.", at_angle(60))
    swap_store(ScriptedDense(store, [(a, 1.0)]))
    results = {r.note: r for r in search("lighthouse", alice, limit=5, query_vector=QUERY)}
    assert results[b].via == "match"
    assert results[b].similarity == pytest.approx(0.5, abs=1e-3)


def test_a_dense_hit_keeps_the_score_the_store_reported(alice, store, swap_store):  # B124
    a = put(alice, "Alpha note on the harbour.", at_angle(60))
    swap_store(ScriptedDense(store, [(a, 1.0)]))
    assert search("harbour", alice, limit=1, query_vector=QUERY)[0].similarity == 1.0


def test_notes_without_a_query_term_never_ride_in_on_bm25(alice, store, swap_store):  # B125
    a = put(alice, "Alpha note on the harbour.", at_angle(0))
    put(alice, "Beta note on the lighthouse.", at_angle(30))
    swap_store(ScriptedDense(store, [(a, 0.9)]))
    assert [r.note for r in search("zeppelin", alice, limit=5, query_vector=QUERY)] == [a]


def test_without_lexical_hits_the_dense_order_stands(alice, store, swap_store):  # B126
    a = put(alice, "Alpha note on the harbour.", at_angle(10))
    b = put(alice, "Beta note on the lighthouse.", at_angle(20))
    c = put(alice, "Gamma note on the pier.", at_angle(30))
    swap_store(ScriptedDense(store, [(c, 0.9), (a, 0.8), (b, 0.7)]))
    assert [r.note for r in search("zeppelin", alice, limit=5, query_vector=QUERY)] == [c, a, b]


def test_a_lexical_hit_joins_the_dense_one_as_a_match(alice, store, swap_store):  # B127
    a = put(alice, "Alpha note on the harbour.", at_angle(0))
    b = put(alice, "The beta release shipped.", at_angle(70))
    swap_store(ScriptedDense(store, [(a, 1.0)]))
    results = search("beta", alice, limit=5, query_vector=QUERY)
    assert {r.note for r in results} == {a, b}
    assert all(r.via == "match" for r in results)


def test_explain_gives_the_full_breakdown(alice, hit_and_neighbour):
    hit, _neighbour = hit_and_neighbour
    match, linked = search("harbour", alice, limit=1, explain=True, query_vector=QUERY)
    assert match.explain["dense_rank"] == 1 and match.explain["dense_score"] == pytest.approx(1.0, abs=1e-3)
    assert match.explain["bm25_rank"] == 1 and match.explain["bm25_score"] > 0
    assert match.explain["rrf"] == pytest.approx(2 / 61) and match.explain["heat"] == 0.0
    assert (linked.explain["hop"], linked.explain["parent"]) == (1, str(hit.pk))


def test_without_explain_there_is_no_breakdown(alice, hit_and_neighbour):
    assert all(r.explain == {} for r in search("harbour", alice, limit=1, query_vector=QUERY))


def test_the_walk_reaches_two_hops_and_no_further(alice, any_store):
    hit = put(alice, "The hit note about the harbour.", at_angle(0))
    one = put(alice, "One hop away, on sailing.", at_angle(40))
    two = put(alice, "Two hops away, on knots.", at_angle(45))
    three = put(alice, "Three hops away, on canvas.", at_angle(50))
    link(hit, one), link(one, two), link(two, three)
    results = search("harbour", alice, limit=1, explain=True, query_vector=QUERY)
    assert [(r.note, r.explain["hop"]) for r in results] == [(hit, 0), (one, 1), (two, 2)]


def test_the_walk_adds_at_most_eight_notes(alice, any_store):
    hit = put(alice, "The hit note about the harbour.", at_angle(0))
    for i in range(12):
        link(hit, put(alice, f"Linked note number {i} on ropes.", at_angle(30 + i)))
    results = search("harbour", alice, limit=1, query_vector=QUERY)
    assert len([r for r in results if r.via == "link"]) == 8
