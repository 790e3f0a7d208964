"""Score fusion: each leg scaled over its pool, mixed by the dense leg's share (round 3)."""

from __future__ import annotations

import pytest

from engine.index.store import Hit
from engine.retrieval.fusion import (
    CLEAR_AT,
    CLEAR_FROM,
    DENSE_SHARE,
    DENSE_SHARE_CLEAR,
    DENSE_SHARE_LONG,
    LONG_QUERY_TERMS,
    SPREAD_RANK,
    dense_share,
    scaled,
    score_fuse,
)
from engine.retrieval.search import search

from .conftest import QUERY, at_angle, put

pytestmark = pytest.mark.django_db


def hits(*pairs):
    return [Hit(note_id, score) for note_id, score in pairs]


def test_each_leg_is_scaled_over_its_pool_best_one_last_zero():
    assert scaled(hits(("a", 9.0), ("b", 6.0), ("c", 3.0))) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert scaled(hits(("a", 0.4), ("b", 0.4))) == {"a": 1.0, "b": 1.0}  # no spread: all equal
    assert scaled(hits(("a", 8.0), ("b", 2.0)), floor=0.0) == {"a": 1.0, "b": 0.25}
    assert scaled([]) == {}


def test_the_margin_of_a_hit_survives_fusion_where_rrf_loses_it():
    # "lex" tops BM25 by a wide margin and is absent from dense; "both" is a little above the
    # floor in both legs. RRF (k 60) ranks "both" first (2/62 > 1/61); the scores do not.
    dense = hits(("both", 0.52), ("d1", 0.6), ("floor", 0.5))
    lexical = hits(("lex", 12.0), ("both", 2.2), ("floor", 2.0))
    fused = score_fuse(dense, lexical, 0.3, pool=3)
    assert max(fused, key=fused.get) == "lex"
    assert fused["lex"] == pytest.approx(0.7)
    assert fused["both"] == pytest.approx(0.3 * 0.2 + 0.7 * 0.02)


def test_a_leg_without_hits_gives_up_its_weight():
    fused = score_fuse([], hits(("a", 3.0), ("b", 1.0)), 0.3, pool=40)
    assert fused == {"a": 1.0, "b": pytest.approx(1 / 3)}  # fewer hits than the pool: floor 0
    assert score_fuse(hits(("a", 0.9), ("b", 0.1)), [], 0.3, pool=40) == {"a": 1.0, "b": 0.0}


def test_a_full_bm25_pool_is_scaled_to_its_last_hit():
    fused = score_fuse([], hits(("a", 3.0), ("b", 2.0), ("c", 1.0)), 0.3, pool=3)
    assert fused == {"a": 1.0, "b": 0.5, "c": 0.0}


def test_a_long_query_reads_as_a_conversation_and_leans_on_the_dense_leg():
    assert dense_share(6) == DENSE_SHARE < DENSE_SHARE_LONG == dense_share(LONG_QUERY_TERMS + 1)
    assert dense_share(LONG_QUERY_TERMS) == DENSE_SHARE


def dense_leg(best: float, tenth: float, count: int = SPREAD_RANK) -> list[Hit]:
    """A dense leg whose best cosine is ``best`` and whose tenth is ``tenth``, evenly between."""
    step = (best - tenth) / (SPREAD_RANK - 1)
    return hits(*((f"n{i}", best - i * step) for i in range(count)))


def test_a_question_leans_on_the_dense_leg_as_far_as_its_best_hit_stands_clear():
    crowded = dense_leg(0.64, 0.64 - CLEAR_FROM)  # chat turns naming the same people: BM25 decides
    clear = dense_leg(0.60, 0.60 - CLEAR_AT)  # one short note stands out to the dense model
    halfway = dense_leg(0.60, 0.60 - (CLEAR_FROM + CLEAR_AT) / 2)
    assert dense_share(6, crowded) == pytest.approx(DENSE_SHARE)
    assert dense_share(6, clear) == pytest.approx(DENSE_SHARE_CLEAR)
    assert dense_share(6, dense_leg(0.9, 0.1)) == pytest.approx(DENSE_SHARE_CLEAR)  # never past it
    assert dense_share(6, halfway) == pytest.approx((DENSE_SHARE + DENSE_SHARE_CLEAR) / 2)
    # A conversation-length query keeps its share; a leg of a few hits is measured to its last.
    assert dense_share(LONG_QUERY_TERMS + 1, clear) == DENSE_SHARE_LONG
    few = hits(("a", 0.46), ("b", 0.35), ("c", 0.22))
    assert dense_share(6, few) == pytest.approx(DENSE_SHARE_CLEAR)
    assert dense_share(6, hits(("a", 0.46))) == DENSE_SHARE


def test_a_note_that_stands_out_in_meaning_outranks_a_single_shared_word(alice, store):
    # "cook" finds the cooking class by BM25 alone; the dense model puts the diet note far ahead
    # of the rest of a store of other notes: the question is about the diet.
    diet = put(alice, "Alex is vegetarian and allergic to nuts.", at_angle(20))
    cooking = put(alice, "I took a cooking class on Thursdays.", at_angle(60))
    for i in range(10):
        put(alice, f"Another note about my week, number {i}.", at_angle(50 + i))
    results = search("cook", alice, limit=3, heat=False, query_vector=QUERY)
    assert [r.note for r in results[:1]] == [diet]
    assert cooking in [r.note for r in results]


def test_a_rare_word_match_outranks_notes_that_are_only_near_in_meaning(alice, store):
    # BM25 finds one note by its rare word; six others are a little nearer the query in meaning,
    # none clear of the rest (the dense leg's spread is under CLEAR_FROM): the rare word decides.
    rare = put(alice, "The zeppelin hangar opened in spring.", at_angle(16))
    near = [put(alice, f"A note near the query, number {i}.", at_angle(10 + i)) for i in range(6)]
    results = search("zeppelin", alice, limit=3, heat=False, query_vector=QUERY, explain=True)
    assert results[0].note == rare
    assert results[0].explain["fused"] == pytest.approx(0.7)  # BM25's share: the dense leg put it last
    assert {r.note for r in results[1:3]} <= set(near)


def test_results_carry_the_score_they_were_ranked_by(alice, store):
    top = put(alice, "The harbour lights at night.", at_angle(0))
    other = put(alice, "A walk along the harbour.", at_angle(30))
    results = search("harbour lights", alice, limit=2, heat=False, query_vector=QUERY)
    assert [r.note for r in results] == [top, other]
    assert results[0].score == pytest.approx(1.0) and 0 <= results[1].score < results[0].score
    assert results[0].rrf > 0  # still reported for clients that read it
