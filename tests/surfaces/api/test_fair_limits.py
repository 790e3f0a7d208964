"""Heavy requests take a slot or are refused with Retry-After, having written nothing; request
size bounds answer a clear 4xx; the small promises of "every error is JSON"."""

from __future__ import annotations

import time

import pytest

from engine.errors import Busy
from engine.write.conversation import Turn, add_conversation
from memories.models import Note
from surfaces import heavy


def long_conversation(turns: int) -> dict:
    return {
        "turns": [{"text": f"Turn number {i} of a long chat about gardening.", "session": "s"} for i in range(turns)]
    }


@pytest.fixture
def few_slots(settings):
    settings.AMEM_HEAVY_PER_AGENT = 1
    settings.AMEM_HEAVY_SLOTS = 1
    settings.AMEM_HEAVY_TURNS = 3


def test_a_second_heavy_request_of_one_agent_is_429_with_retry_after_and_writes_nothing(
    as_alice, alice, store, few_slots
):
    with heavy.slot(alice.pk):  # alice's first long conversation is still running
        answer = as_alice.post("/conversations", long_conversation(5))
    assert answer.status_code == 429
    assert int(answer["Retry-After"]) >= 1
    assert "heavy" in answer.json()["detail"]
    assert not Note.objects.exists()


def test_a_heavy_request_when_the_server_is_full_is_503_with_retry_after(as_alice, bob, store, few_slots):
    with heavy.slot(bob.pk):  # another agent holds the only slot
        answer = as_alice.post("/conversations", long_conversation(5))
        small = as_alice.post("/conversations", long_conversation(2))  # not heavy: served
    assert answer.status_code == 503
    assert int(answer["Retry-After"]) >= 1
    assert small.status_code == 201
    assert Note.objects.count() == 2


def test_a_slot_is_given_back_when_the_request_fails(alice, few_slots):
    with pytest.raises(RuntimeError), heavy.slot(alice.pk):
        raise RuntimeError("boom")
    with heavy.slot(alice.pk):
        pass


def test_jobs_run_on_demand_are_heavy(as_alice, alice, store, few_slots):
    with heavy.slot(alice.pk):
        assert as_alice.post("/jobs/consolidate").status_code == 429


def test_a_conversation_past_its_deadline_stores_nothing(alice, store, settings):
    turns = [Turn(f"Turn number {i} of a long chat about gardening.", "s") for i in range(300)]
    with pytest.raises(Busy):
        add_conversation(alice, turns, deadline=time.monotonic() - 1)
    assert not Note.objects.exists()


def test_a_two_megabyte_query_is_refused_with_a_clear_400(as_alice, store):
    answer = as_alice.post("/memories/search", {"query": "harbour " * 250_000})
    assert answer.status_code == 400
    assert "the limit is 20000" in answer.json()["detail"]


def test_a_null_token_budget_means_the_default(as_alice, store):
    answer = as_alice.post("/recall", {"query": "gardening", "token_budget": None, "limit": None})
    assert answer.status_code == 200, answer.json()
    assert answer.json()["token_budget"] == 1200


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_trailing_slash_is_a_json_404_that_names_the_path_without_it(as_alice, store, method):
    answer = getattr(as_alice, method)("/memories/")
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/json"
    assert "/api/v1/memories" in answer.json()["detail"] and "trailing slash" in answer.json()["detail"]


def test_an_unknown_api_path_is_a_json_404(as_alice, store):
    answer = as_alice.get("/nothing/here")
    assert answer.status_code == 404
    assert answer.json()["detail"] == "no API endpoint GET /api/v1/nothing/here"


def test_hsts_is_sent_over_https(client, db, settings):
    settings.SECURE_HSTS_SECONDS = 31_536_000
    answer = client.get("/healthz", secure=True)
    assert answer["Strict-Transport-Security"] == "max-age=31536000"
