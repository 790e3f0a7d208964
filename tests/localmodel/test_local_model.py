"""amem in LLM mode against a real 135M model: every write lands, parsed or fallen back, never a 5xx."""

from __future__ import annotations

import pytest

from memories.models import LlmCall, Note
from tests.surfaces.api.conftest import AgentClient, key_for

pytestmark = pytest.mark.django_db(transaction=True)

TEXTS = [
    "We moved the staging database from MySQL to PostgreSQL 16 last week.",
    "Caroline adopted a grey kitten called Mochi; the vet visit is on Friday.",
    "The team decided to ship the search feature behind a flag in March.",
]
ANSWERED = ("ok", "parse_error", "provider_error")


def test_writes_land_with_parsed_or_fallen_back_fields(llm_mode, alice, store) -> None:
    client = AgentClient(key_for(alice))
    for text in TEXTS:
        response = client.post("/memories?include=cost", {"text": text})
        assert response.status_code == 201, response.content
        body = response.json()
        note = Note.objects.get(pk=body["id"])
        # Whatever the model said, the note has its fields: the model's or the offline rules'.
        assert note.keywords and note.tags and note.context
        construct = body["cost"]["roles"]["construct"]
        assert construct["calls"] == 1 and set(construct["outcomes"]) <= set(ANSWERED)
        assert ("construct" in body["fell_back"]) == ("ok" not in construct["outcomes"])
    calls = LlmCall.objects.filter(agent_id=alice.pk)
    assert calls.count() >= len(TEXTS) and set(calls.values_list("outcome", flat=True)) <= set(ANSWERED)


def test_a_turn_lands_every_op_it_decides(llm_mode, alice, store) -> None:
    client = AgentClient(key_for(alice))
    response = client.post(
        "/turns?include=cost",
        {"messages": [{"role": "user", "content": "I prefer short answers in bullet points, please."}]},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["cost"]["roles"]["crud"]["calls"] == 1
    for op in body["ops"]:
        assert op["status"] in ("applied", "stored_as_new", "skipped")
        if op["action"] == "NEW" and op["status"] == "applied":
            assert Note.objects.filter(pk=op["note_id"], is_active=True).exists()
