"""POST /api/v1/reflect: an on-demand reflection, citing only the caller's own notes."""

from __future__ import annotations

from engine.layers import reflection
from memories.models import Note
from tests.surfaces.api.conftest import AgentClient

TEA = (
    "Alex drinks green tea every morning.",
    "Alex bought a new green tea from Kyoto.",
    "Should we order more green tea for the office?",
)


def test_reflect_writes_a_reflection_citing_the_agents_own_notes(as_alice, as_bob, store):
    for text in TEA:
        as_alice.post("/memories", {"text": text})
    bobs = as_bob.post("/memories", {"text": "Bob also drinks green tea every morning."}).json()["id"]
    response = as_alice.post("/reflect")
    assert response.status_code == 200, response.content
    out = response.json()
    assert out["outcome"] == "written"
    note = Note.objects.get(pk=out["id"])
    assert (note.owner, note.layer, note.content) == ("alice", "reflection", out["text"])
    assert "tea" in out["text"].lower()
    own = {
        str(pk) for pk in Note.objects.filter(owner="alice").exclude(layer="reflection").values_list("pk", flat=True)
    }
    assert out["cites"] and set(out["cites"]) <= own and bobs not in out["cites"]
    assert out["cites"] == reflection.cited_by(note)
    # Nothing written since: a second call says so and writes nothing.
    again = as_alice.post("/reflect").json()
    assert again == {"outcome": "nothing_new", "id": None, "text": None, "cites": []}
    assert Note.objects.filter(owner="alice", layer="reflection").count() == 1


def test_reflect_with_too_few_notes_writes_nothing(as_alice, store):
    as_alice.post("/memories", {"text": TEA[0]})
    assert as_alice.post("/reflect").json()["outcome"] == "nothing_new"
    assert not Note.objects.filter(layer="reflection").exists()


def test_reflect_needs_a_key(alice, store):
    response = AgentClient(None).post("/reflect")
    assert response.status_code == 401
    assert not Note.objects.exists()
