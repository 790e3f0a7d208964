"""GET / PATCH / DELETE /memories/{id}: 404 for anything unreadable (same body), 403 for read-only."""

from __future__ import annotations

import uuid

import pytest

from memories.models import Link, Note, NoteEvent

COFFEE = "Alex likes a flat white with oat milk every morning."
NEW_COFFEE = "Alex switched to black filter coffee, no milk, since May."
NOT_FOUND = {"detail": "no such note"}
BY_ID_FIELDS = {"links", "retrieval_count", "is_active", "updated_at"}  # beyond the note_fields every answer carries


def test_it_returns_the_note_with_its_readable_links(as_alice, as_bob, store, note_fields):
    mine = as_alice.post("/memories", {"text": COFFEE, "sources": ["m1"]}).json()["id"]
    other = as_alice.post("/memories/episodic", {"text": "Alex's café is on Main Street."}).json()["id"]
    bobs = as_bob.post("/memories/episodic", {"text": "Bob's private note about the café."}).json()["id"]
    for target in (other, bobs):
        Link.objects.create(source_id=mine, target_id=target)
    response = as_alice.get(f"/memories/{mine}")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == note_fields | BY_ID_FIELDS
    assert (body["id"], body["content"], body["sources"], body["scope"]) == (mine, COFFEE, ["m1"], "private")
    assert body["links"] == [other]  # bob's note is not alice's business, not even its id
    assert (body["retrieval_count"], body["is_active"]) == (0, True)
    assert body["keywords"]


def test_reading_by_id_does_not_heat(as_alice, store):
    note_id = as_alice.post("/memories/episodic", {"text": COFFEE}).json()["id"]
    as_alice.get(f"/memories/{note_id}")
    assert Note.objects.get(pk=note_id).retrieval_count == 0


def test_patch_replaces_the_text_and_keeps_the_old_one_in_history(as_alice, store):
    note_id = as_alice.post("/memories", {"text": COFFEE, "sources": ["m1"]}).json()["id"]
    response = as_alice.patch(f"/memories/{note_id}", {"text": NEW_COFFEE, "sources": ["m2"]})
    assert response.status_code == 200
    assert (response.json()["content"], response.json()["sources"]) == (NEW_COFFEE, ["m1", "m2"])
    note = Note.objects.get(pk=note_id)
    assert note.content == NEW_COFFEE and "black" in " ".join(note.keywords).lower()
    event = note.events.get(action="crud_update")
    assert (event.before["content"], event.after["content"], event.actor) == (COFFEE, NEW_COFFEE, "alice")
    found = as_alice.post("/memories/search", {"query": "black filter coffee"}).json()["results"]
    assert found[0]["content"] == NEW_COFFEE


@pytest.mark.parametrize(
    "body, status, detail",
    [
        (
            {"text": "ok"},
            422,
            "[quality] text is shorter than 4 characters (letters and digits; a CJK character counts 3)",
        ),
        ({"text": ""}, 422, "[quality]"),
        ({}, 400, "text: Field required"),
        ({"text": NEW_COFFEE, "scope": "shared"}, 400, "scope: unknown field"),
    ],
)
def test_a_bad_patch_changes_nothing(body, status, detail, as_alice, store, snapshot):
    note_id = as_alice.post("/memories/episodic", {"text": COFFEE}).json()["id"]
    before = snapshot()
    response = as_alice.patch(f"/memories/{note_id}", body)
    assert response.status_code == status
    assert response.json()["detail"].startswith(detail)
    assert snapshot() == before


def test_delete_retires_softly(as_alice, store):
    note_id = as_alice.post("/memories/episodic", {"text": COFFEE}).json()["id"]
    assert as_alice.get("/memories/count").json() == {"count": 1}
    response = as_alice.delete(f"/memories/{note_id}")
    assert response.status_code == 200
    assert response.json() == {"id": note_id, "retired": True}
    note = Note.objects.get(pk=note_id)  # the row stays
    assert note.is_active is False
    assert note.events.get(action="retire").actor == "alice"
    assert as_alice.post("/memories/search", {"query": "flat white oat milk"}).json() == {"results": []}
    assert as_alice.get("/memories/count").json() == {"count": 0}
    assert as_alice.get(f"/memories/{note_id}").json() == NOT_FOUND
    assert as_alice.delete(f"/memories/{note_id}").status_code == 404


def _unreadable_ids(as_bob) -> dict[str, str]:
    return {
        "another agent's private note": as_bob.post("/memories/episodic", {"text": COFFEE}).json()["id"],
        "a note that does not exist": str(uuid.uuid4()),
        "a malformed id": "not-a-uuid",
        "an id with odd characters": "%E2%9C%93%20x",
        "a number": "42",
    }


def test_anything_unreadable_is_the_same_404_on_every_method(as_alice, as_bob, store, snapshot):
    ids = _unreadable_ids(as_bob)
    before = snapshot()
    for what, note_id in ids.items():
        for response in (
            as_alice.get(f"/memories/{note_id}"),
            as_alice.patch(f"/memories/{note_id}", {"text": NEW_COFFEE}),
            as_alice.delete(f"/memories/{note_id}"),
        ):
            assert (response.status_code, response.json()) == (404, NOT_FOUND), what
    assert snapshot() == before
    bobs = ids["another agent's private note"]
    assert as_bob.get(f"/memories/{bobs}").status_code == 200


def test_a_shared_note_is_readable_by_all_but_writable_by_its_owner_only(as_alice, as_bob, store, snapshot):
    note_id = as_bob.post("/memories/episodic", {"text": COFFEE, "scope": "shared"}).json()["id"]
    assert as_alice.get(f"/memories/{note_id}").json()["content"] == COFFEE
    before = snapshot()
    patched = as_alice.patch(f"/memories/{note_id}", {"text": NEW_COFFEE})
    for response in (patched, as_alice.delete(f"/memories/{note_id}")):
        assert response.status_code == 403
        assert response.json() == {"detail": "this note is read-only for you"}
    assert snapshot() == before
    assert not NoteEvent.objects.filter(actor="alice").exists()
    assert as_bob.delete(f"/memories/{note_id}").status_code == 200


def test_a_note_granted_to_another_agent_can_be_written_by_it(as_alice, as_bob, store):
    note_id = as_bob.post("/memories/episodic", {"text": COFFEE}).json()["id"]
    Note.objects.filter(pk=note_id).update(readers=["bob", "alice"], writers=["bob", "alice"])
    response = as_alice.patch(f"/memories/{note_id}", {"text": NEW_COFFEE})
    assert response.status_code == 200
    assert Note.objects.get(pk=note_id).content == NEW_COFFEE
