"""GET /memories?limit&offset: the caller's own active notes, newest first, paged."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import SHARED_AGENT
from tests.engine.maintenance.conftest import put


def test_it_pages_through_the_callers_notes_newest_first(as_alice, alice, bob):
    now = timezone.now()
    notes = [
        put(alice, f"Alice's note number {i} about hiking.", created_at=now - timedelta(minutes=i)) for i in range(5)
    ]
    shared = put(
        alice,
        "Alice shares the team's hiking calendar.",
        agent_id=SHARED_AGENT,
        readers=["*"],
        created_at=now - timedelta(minutes=10),
    )
    put(alice, "A retired note of Alice's about hiking.", is_active=False)
    put(bob, "Bob's private note about hiking boots.")
    first = as_alice.get("/memories?limit=2").json()
    assert (first["total"], first["limit"], first["offset"]) == (6, 2, 0)
    assert [r["id"] for r in first["results"]] == [str(notes[0].pk), str(notes[1].pk)]
    rest = as_alice.get("/memories?limit=10&offset=2").json()
    assert [r["id"] for r in rest["results"]] == [str(n.pk) for n in notes[2:]] + [str(shared.pk)]
    assert rest["results"][-1]["scope"] == "shared"
    row = first["results"][0]
    assert {"content", "retrieval_count", "last_accessed", "updated_at", "created_at", "tags"} <= set(row)


def test_defaults_and_an_empty_page(as_alice, alice):
    put(alice, "Alice's only note about the garden.")
    body = as_alice.get("/memories").json()
    assert (body["total"], body["limit"], body["offset"], len(body["results"])) == (1, 20, 0, 1)
    assert as_alice.get("/memories?offset=5").json()["results"] == []


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "offset=-1", "limit=many", "offset=113803334539117854720"])
def test_bad_paging_is_a_400(as_alice, query):
    response = as_alice.get(f"/memories?{query}")
    assert response.status_code == 400 and response.json()["detail"]


def test_listing_needs_a_key(db):
    from tests.surfaces.api.conftest import AgentClient

    assert AgentClient(None).get("/memories").status_code == 401
