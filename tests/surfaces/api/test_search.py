"""POST /memories/search and GET /memories/count: what this agent may read, and nothing else."""

from __future__ import annotations

import pytest

from memories.models import Note

COFFEE = "Alex likes a flat white with oat milk every morning."
TEA = "Sam drinks green tea and never touches coffee."
WORLD = "The café on Main Street opens at seven in the morning."
HIT_FIELDS = {
    "via",
    "similarity",
    "score",
    "rrf",
    "surrounding",
}  # beyond the note_fields; relevance too, on a model with weights


def test_write_count_search_end_to_end(as_alice, as_bob, store, note_fields):
    created = as_alice.post("/memories", {"text": COFFEE, "subjects": ["alex"], "sources": ["m1"]})
    assert created.status_code == 201
    assert as_alice.get("/memories/count").json() == {"count": 1}
    response = as_alice.post("/memories/search", {"query": "what coffee does alex like"})
    assert response.status_code == 200
    results = response.json()["results"]
    assert results[0]["id"] == created.json()["id"]
    assert set(results[0]) == note_fields | HIT_FIELDS  # no explain unless asked
    assert (results[0]["via"], results[0]["subjects"], results[0]["sources"]) == ("match", ["alex"], ["m1"])
    assert 0 < results[0]["similarity"] <= 1 and results[0]["rrf"] > 0
    assert results[0]["score"] == pytest.approx(1.0)  # the only match tops both legs
    # Another agent's key sees none of it.
    assert as_bob.get("/memories/count").json() == {"count": 0}
    assert as_bob.post("/memories/search", {"query": "what coffee does alex like"}).json() == {"results": []}


def test_a_search_heats_what_it_returns(as_alice, store):
    note_id = as_alice.post("/memories/episodic", {"text": COFFEE}).json()["id"]
    as_alice.post("/memories/search", {"query": "flat white"})
    assert Note.objects.get(pk=note_id).retrieval_count == 1


def test_explain_adds_the_score_breakdown(as_alice, store, note_fields):
    as_alice.post("/memories/episodic", {"text": COFFEE})
    result = as_alice.post("/memories/search", {"query": "flat white oat milk", "explain": True}).json()["results"][0]
    assert set(result) == note_fields | HIT_FIELDS | {"explain"}
    assert result["explain"]["dense_rank"] == 1 and result["explain"]["hop"] == 0
    assert result["explain"]["rrf"] == result["rrf"]
    assert result["explain"]["fused"] == result["score"] == pytest.approx(1.0)


def test_the_limit_caps_the_matches(as_alice, store):
    for i in range(4):
        as_alice.post("/memories/episodic", {"text": f"Coffee note number {i} about flat whites."})
    results = as_alice.post("/memories/search", {"query": "flat white coffee", "limit": 2}).json()["results"]
    assert len([r for r in results if r["via"] == "match"]) == 2


def test_a_subject_scopes_the_search_to_that_person_and_world_facts(as_alice, store):
    for text, subjects in ((COFFEE, ["alex"]), (TEA, ["sam"]), (WORLD, [])):
        as_alice.post("/memories/episodic", {"text": text, "subjects": subjects})
    results = as_alice.post("/memories/search", {"query": "coffee morning", "subject": "alex", "limit": 10}).json()
    assert {r["content"] for r in results["results"]} == {COFFEE, WORLD}


def test_a_shared_note_is_found_by_everyone_and_a_private_one_by_its_owner_only(as_alice, as_bob, store):
    as_bob.post("/memories/episodic", {"text": TEA, "scope": "shared"})
    as_bob.post("/memories/episodic", {"text": COFFEE})
    found = as_alice.post("/memories/search", {"query": "coffee", "limit": 10}).json()["results"]
    assert [r["content"] for r in found] == [TEA]
    assert found[0]["scope"] == "shared"
    assert as_alice.get("/memories/count").json() == {"count": 1}
    assert as_bob.get("/memories/count").json() == {"count": 2}


@pytest.mark.parametrize(
    "body, detail",
    [
        ({"query": "coffee", "limit": 0}, "limit: Input should be greater than or equal to 1"),
        ({"query": "coffee", "limit": 101}, "limit: Input should be less than or equal to 100"),
        ({"query": "coffee", "limit": -3}, "limit: Input should be greater than or equal to 1"),
        ({"query": "coffee", "limit": "5"}, "limit: Input should be a valid integer"),
        ({"query": "coffee", "limit": True}, "limit: Input should be a valid integer"),
        ({"query": "coffee", "limit": 2.5}, "limit: Input should be a valid integer"),
        ({}, "query: Field required"),
        ({"query": "   "}, "query must be a non-empty string"),
        ({"query": "coffee", "topics_filter": "tea"}, "topics_filter: Input should be a valid list"),
        ({"query": "coffee", "topics_filter": [""]}, "topics_filter must hold non-empty strings"),
        ({"query": "coffee", "explain": "yes"}, "explain: Input should be a valid boolean"),
        ({"query": "coffee", "agent": "bob"}, "agent: unknown field"),
    ],
)
def test_bad_search_input_is_400_with_a_detail(body, detail, as_alice, store):
    as_alice.post("/memories/episodic", {"text": COFFEE})
    response = as_alice.post("/memories/search", body)
    assert response.status_code == 400
    assert response.json()["detail"].startswith(detail)
    assert Note.objects.get().retrieval_count == 0  # nothing was searched


EXCHANGE = [
    "What did you paint last week?",
    "A sunset over the harbour, in oils.",
    "Lovely, will you frame it?",
]


def test_a_match_from_a_conversation_carries_the_turns_around_it(as_alice, as_bob, store, drain):
    turns = [{"text": t, "session": "s1", "source": f"t{i}"} for i, t in enumerate(EXCHANGE)]
    assert as_alice.post("/conversations", {"turns": turns}).status_code == 201
    drain()
    results = as_alice.post("/memories/search", {"query": "sunset harbour oils", "limit": 1}).json()["results"]
    match = results[0]
    assert match["content"] == EXCHANGE[1] and match["via"] == "match"
    around = [(s["content"], s["position"], s["distance"], s["sources"]) for s in match["surrounding"]]
    assert around == [(EXCHANGE[0], "before", 1, ["t0"]), (EXCHANGE[2], "after", 1, ["t2"])]
    assert {"id", "content", "position", "distance", "sources", "created_at"} == set(match["surrounding"][0])
    # Another agent reads none of it.
    assert as_bob.post("/memories/search", {"query": "sunset harbour oils"}).json()["results"] == []
