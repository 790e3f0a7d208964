"""A search costs a constant number of database queries, whatever the limit and the links."""

from __future__ import annotations

import itertools

from django.db import connection
from django.test.utils import CaptureQueriesContext

from engine.retrieval.search import search
from engine.retrieval.surrounding import ADJACENT
from memories.models import Link

from .conftest import QUERY, at_angle, link, put


def queries_for(agent, limit: int) -> int:
    with CaptureQueriesContext(connection) as captured:
        results = search("harbour", agent, limit=limit, query_vector=QUERY)
    assert any(r.via == "link" for r in results)
    return len(captured.captured_queries)


def test_read_back_and_link_walk_do_not_grow_with_the_results(alice, store):
    notes = [put(alice, f"Harbour note number {i}.", at_angle(i)) for i in range(30)]
    for a, b in itertools.pairwise(notes):
        link(a, b)
        link(b, a)
    search("harbour", alice, limit=1, query_vector=QUERY)  # anything left to index is synced here
    small, large = queries_for(alice, 1), queries_for(alice, 20)
    # dirty check, the candidates' rows, the links between them, the matches read whole,
    # two link levels (links + targets each), the heat bump (lock the free rows, then UPDATE)
    assert small == large <= 9


def test_a_query_naming_a_time_reads_the_candidates_text_once(alice, store):
    # The candidates' own words are read for the dates they tell of: one query, however many.
    for i in range(30):
        put(alice, f"Harbour note number {i}, two weeks ago.", at_angle(i))
    search("harbour", alice, limit=1, query_vector=QUERY)  # anything left to index is synced here
    counts = []
    for query in ("harbour", "harbour in January 2023"):
        with CaptureQueriesContext(connection) as captured:
            search(query, alice, limit=20, query_vector=QUERY, heat=False)
        counts.append(len(captured.captured_queries))
    assert counts[1] == counts[0] + 1


def test_the_turns_around_the_matches_cost_the_same_queries_at_any_limit(alice, store):
    # A conversation of 40 turns, adjacent turns linked as the conversation path links them.
    turns = [put(alice, f"Harbour turn number {i}.", at_angle(i), session="s1") for i in range(40)]
    for a, b in itertools.pairwise(turns):
        Link.objects.create(source=a, target=b, reason=ADJACENT)
        Link.objects.create(source=b, target=a, reason=ADJACENT)
    search("harbour", alice, limit=1, query_vector=QUERY)  # anything left to index is synced here
    counts = []
    for limit in (1, 5, 12):
        with CaptureQueriesContext(connection) as captured:
            results = search("harbour", alice, limit=limit, query_vector=QUERY, heat=False)
        assert all(r.surrounding for r in results if r.via == "match")
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1] == counts[2]
