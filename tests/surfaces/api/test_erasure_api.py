"""Erasure over the API: ?purge=true on a note, DELETE /subjects/{name}; owners only, nothing leaked."""

from __future__ import annotations

from memories.models import Erasure, Note

TEXT = "The spare key to the flat is under the blue flower pot"


def test_purge_erases_the_note_and_answers_with_the_audit_record(as_alice, store):
    note_id = as_alice.post("/memories/episodic", {"text": TEXT}).json()["id"]
    response = as_alice.delete(f"/memories/{note_id}?purge=true")
    assert response.status_code == 200
    body = response.json()
    assert body["erased"] is True and body["counts"]["notes"] == 1
    assert Erasure.objects.get(pk=body["erasure"]).actor == "alice"
    assert Note.objects.get(pk=note_id).content == ""
    assert as_alice.get(f"/memories/{note_id}").status_code == 404
    assert as_alice.delete(f"/memories/{note_id}?purge=true").status_code == 404  # once


def test_a_retired_note_can_still_be_purged_by_its_owner(as_alice, store):
    note_id = as_alice.post("/memories/episodic", {"text": TEXT}).json()["id"]
    as_alice.delete(f"/memories/{note_id}")
    assert as_alice.delete(f"/memories/{note_id}?purge=true").status_code == 200
    assert Note.objects.get(pk=note_id).erased_at is not None


def test_another_agent_cannot_purge_even_a_note_it_may_read(as_alice, as_bob, store):
    note_id = as_alice.post("/memories/episodic", {"text": TEXT, "scope": "shared"}).json()["id"]
    assert as_bob.get(f"/memories/{note_id}").status_code == 200
    assert as_bob.delete(f"/memories/{note_id}?purge=true").status_code == 404
    assert Note.objects.get(pk=note_id).content == TEXT


def test_a_subject_is_erased_only_with_purge(as_alice, store):
    note_id = as_alice.post("/memories/episodic", {"text": TEXT, "subjects": ["dora"]}).json()["id"]
    refused = as_alice.delete("/subjects/dora")
    assert refused.status_code == 400 and "purge=true" in refused.json()["detail"]
    assert Note.objects.get(pk=note_id).content == TEXT
    done = as_alice.delete("/subjects/dora?purge=true")
    assert done.status_code == 200 and done.json()["counts"]["notes"] == 1
    assert Note.objects.get(pk=note_id).content == ""
