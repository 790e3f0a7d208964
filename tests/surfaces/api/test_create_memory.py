"""POST /memories: the full write pipeline; bad input is 400/422 with a detail and writes nothing."""

from __future__ import annotations

import datetime as dt

import pytest

from memories.models import LlmCall, Note

TEXT = "The staging database runs PostgreSQL 16 on a dedicated host."


def test_it_creates_a_memory(as_alice, store):
    response = as_alice.post(
        "/memories",
        {
            "text": TEXT,
            "subjects": ["alex"],
            "sources": ["msg-1"],
            "note_type": "knowledge",
            "occurred_at": "2024-05-01T09:30:00+02:00",
        },
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "outcome", "links", "similar_to", "similarity", "fell_back"}
    assert (body["outcome"], body["links"], body["similar_to"], body["similarity"]) == ("created", [], None, None)
    note = Note.objects.get(pk=body["id"])
    assert note.content == TEXT and note.owner == "alice"
    assert (note.subjects, note.sources, note.note_type) == (["alex"], ["msg-1"], "knowledge")
    assert note.created_at == dt.datetime(2024, 5, 1, 7, 30, tzinfo=dt.UTC)
    assert note.keywords  # constructed (offline rules), unlike the episodic path
    assert LlmCall.objects.filter(role="construct").exists()


def test_the_same_text_again_is_a_duplicate_of_the_first(as_alice, store):
    first = as_alice.post("/memories", {"text": TEXT}).json()
    again = as_alice.post("/memories", {"text": "  the staging database runs PostgreSQL 16 on a dedicated host. "})
    assert again.status_code == 201
    assert again.json() == {
        "id": first["id"],
        "outcome": "duplicate",
        "links": [],
        "similar_to": first["id"],
        "similarity": 1.0,
        "fell_back": [],
    }
    assert Note.objects.count() == 1


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_a_related_memory_reports_its_links(as_alice, store):
    first = as_alice.post("/memories", {"text": TEXT}).json()
    second = as_alice.post("/memories", {"text": "The staging database host has 64 GB of RAM and fast NVMe disks."})
    assert second.status_code == 201
    assert second.json()["outcome"] == "created"
    assert second.json()["links"] == [first["id"]]


def test_a_shared_memory_is_readable_by_every_agent(as_alice, as_bob, store):
    body = as_alice.post("/memories", {"text": TEXT, "scope": "shared"}).json()
    note = Note.objects.get(pk=body["id"])
    assert (note.agent_id, note.owner, note.readers, note.writers) == ("shared", "alice", ["*"], ["alice"])
    response = as_bob.get(f"/memories/{body['id']}")
    assert response.status_code == 200
    assert response.json()["scope"] == "shared"


@pytest.mark.parametrize(
    "body, status, detail",
    [
        ({"text": TEXT, "colour": "blue"}, 400, "colour: unknown field"),
        ({}, 400, "text: Field required"),
        ({"text": 42}, 400, "text: Input should be a valid string"),
        ({"text": TEXT, "scope": "public"}, 400, "scope: Input should be 'private' or 'shared'"),
        ({"text": TEXT, "note_type": "diary"}, 400, "note_type: Input should be 'memory' or 'knowledge'"),
        ({"text": TEXT, "subjects": "alex"}, 400, "subjects: Input should be a valid list"),
        ({"text": TEXT, "subjects": [""]}, 400, "subjects must hold non-empty strings of at most 200 characters"),
        ({"text": TEXT, "sources": ["a\x00b"]}, 400, "sources.0: must not contain control characters"),
        ({"text": TEXT, "subjects": ["alex", "\ud800"]}, 400, "subjects.1: must not contain control characters"),
        ({"text": TEXT, "occurred_at": "2024-05-01T09:30:00"}, 400, "occurred_at: Input should have timezone info"),
        ({"text": TEXT, "occurred_at": "last tuesday"}, 400, "occurred_at: Input should be a valid datetime"),
        ({"text": TEXT, "occurred_at": 1714555800}, 400, "occurred_at: must be an ISO 8601 string with a time zone"),
        ({"text": TEXT, "occurred_at": "9999-12-31T23:00:00-05:00"}, 400, "occurred_at: is out of range once conv"),
        ({"text": "x" * 20_001}, 400, "text is 20001 characters; the limit is 20000"),
        ({"text": "bad \x07 bell in the middle"}, 400, "text: must not contain control characters"),
        ({"text": "\ud800 lone surrogate here"}, 400, "text: must not contain control characters or lone surrogates"),
        (
            {"text": ""},
            422,
            "[quality] text is shorter than 4 characters (letters and digits; a CJK character counts 3)",
        ),
        (
            {"text": "   ok!   "},
            422,
            "[quality] text is shorter than 4 characters (letters and digits; a CJK character counts 3)",
        ),
    ],
)
def test_bad_input_is_refused_with_a_detail_and_writes_nothing(body, status, detail, as_alice, store, snapshot):
    as_alice.post("/memories", {"text": "An existing note that must stay exactly as it is."})
    before = snapshot()
    response = as_alice.post("/memories", body)
    assert response.status_code == status
    assert response.json()["detail"].startswith(detail)
    assert snapshot() == before


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", '"just a string"', "null"])
def test_a_body_that_is_not_a_json_object_is_400(raw, as_alice, store):
    response = as_alice.post("/memories", raw)
    assert response.status_code == 400
    assert response.json()["detail"]
    assert not Note.objects.exists()


def test_an_empty_body_is_400(as_alice, store):
    response = as_alice.post("/memories", "")
    assert response.status_code == 400
    assert response.json() == {"detail": "body: Field required"}
