"""POST /memories/episodic and POST /conversations: the cheap path, no LLM, all or nothing."""

from __future__ import annotations

import pytest

from memories.models import Link, LlmCall, Note

TEXT = "Alex ordered a flat white with oat milk at 9:10."


def test_an_episodic_write_is_stored_as_given_without_a_model(as_alice, store):
    response = as_alice.post(
        "/memories/episodic",
        {"text": TEXT, "subjects": ["alex"], "sources": ["m-9"], "context": "At the café on Monday."},
    )
    assert response.status_code == 201
    assert set(response.json()) == {"id"}
    note = Note.objects.get(pk=response.json()["id"])
    assert (note.content, note.context) == (TEXT, "At the café on Monday.")
    assert (note.subjects, note.sources) == (["alex"], ["m-9"])
    assert note.keywords == [] and note.embedding is not None
    assert not LlmCall.objects.exists()


def test_the_episodic_path_does_not_deduplicate(as_alice, store):
    assert as_alice.post("/memories/episodic", {"text": TEXT}).status_code == 201
    assert as_alice.post("/memories/episodic", {"text": TEXT}).status_code == 201
    assert Note.objects.filter(content=TEXT).count() == 2


@pytest.mark.parametrize(
    "body, status, detail",
    [
        ({"text": "ok"}, 422, "[quality]"),
        ({"text": TEXT, "note_type": "memory"}, 400, "note_type: unknown field"),
        ({"text": TEXT, "context": "bell \x07 inside"}, 400, "context: must not contain control characters"),
    ],
)
def test_bad_episodic_input_writes_nothing(body, status, detail, as_alice, store, snapshot):
    before = snapshot()
    response = as_alice.post("/memories/episodic", body)
    assert response.status_code == status
    assert response.json()["detail"].startswith(detail)
    assert snapshot() == before


CONVERSATION = {
    "turns": [
        {"text": "Did you go hiking last weekend?", "session": "s1", "source": "t1"},
        {"text": "Yes, we climbed Mount Tam on Saturday!", "session": "s1", "source": "t2", "subjects": ["alex"]},
        {
            "text": "A new day: my sister visits in June.",
            "session": "s2",
            "source": "t3",
            "occurred_at": "2024-05-02T08:00:00Z",
        },
    ]
}


def test_a_conversation_is_stored_turn_by_turn_with_context_and_adjacent_links(as_alice, store):
    response = as_alice.post("/conversations", CONVERSATION)
    assert response.status_code == 201
    ids = response.json()["ids"]
    assert len(ids) == 3
    notes = [Note.objects.get(pk=i) for i in ids]
    assert [n.content for n in notes] == [t["text"] for t in CONVERSATION["turns"]]
    assert [n.context for n in notes] == ["", "Did you go hiking last weekend?", ""]
    assert [n.sources for n in notes] == [["t1"], ["t2"], ["t3"]]
    assert notes[1].subjects == ["alex"]
    assert notes[2].created_at.isoformat() == "2024-05-02T08:00:00+00:00"
    pairs = set(Link.objects.values_list("source_id", "target_id"))
    assert pairs == {(notes[0].pk, notes[1].pk), (notes[1].pk, notes[0].pk)}  # sessions are not linked
    assert not LlmCall.objects.exists()


def test_a_refused_turn_is_skipped_and_reported_by_position(as_alice, store):
    turns = [
        {"text": TEXT},
        {"text": "Bye"},
        {"text": "x" * 30_000},
        {"text": "And then we walked home along the river."},
    ]
    response = as_alice.post("/conversations", {"turns": turns})
    assert response.status_code == 201
    body = response.json()
    assert len(body["ids"]) == 2
    assert [s["position"] for s in body["skipped"]] == [1, 2]
    assert body["skipped"][0]["reason"].startswith("[quality]")
    last = Note.objects.get(pk=body["ids"][1])
    assert last.context == "x" * 20_000  # the over-long turn, cut to the limit, is still its context


def test_adjacent_links_can_be_switched_off(as_alice, store):
    response = as_alice.post("/conversations", {**CONVERSATION, "link_adjacent": False})
    assert response.status_code == 201
    assert not Link.objects.exists()


@pytest.mark.parametrize(
    "body, status, detail",
    [
        ({"turns": []}, 400, "turns: List should have at least 1 item"),
        ({"turns": [{"text": "ok"}, {"text": "x" * 30_000}]}, 422, "[quality] every turn was refused"),
        ({"turns": [{"text": TEXT}, {"text": 42}]}, 400, "turns.1.text"),
        ({"turns": [{"text": TEXT}, {"text": TEXT, "context": "x"}]}, 400, "turns.1.context: unknown field"),
        ({"turns": [{"text": TEXT, "occurred_at": "2024-05-02T08:00:00"}]}, 400, "turns.0.occurred_at"),
        ({**CONVERSATION, "link_adjacent": "yes"}, 400, "link_adjacent: Input should be a valid boolean"),
        ({**CONVERSATION, "scope": "team"}, 400, "scope:"),
    ],
)
def test_a_bad_turn_writes_nothing_at_all(body, status, detail, as_alice, store, snapshot):
    before = snapshot()
    response = as_alice.post("/conversations", body)
    assert response.status_code == status
    assert response.json()["detail"].startswith(detail)
    assert snapshot() == before
