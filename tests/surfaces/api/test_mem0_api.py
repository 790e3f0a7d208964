"""The mem0-compatible API at /mem0/ in-process: shapes, mapping, refusals, isolation.

tests/live/test_mem0_client.py drives the same calls through mem0ai's own client against a
real server; these cover the mapping's rules case by case, fast.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from memories.models import Gateway, GatewayKey, Note, NoteEvent
from tests.surfaces.api.conftest import key_for

COFFEE = "Alex switched to black filter coffee in May."
HIKING = "Alex goes hiking in the Alps every August."
SAM = "Sam is allergic to peanuts and carries an epipen."


class Mem0Client:
    """django.test.Client speaking mem0's wire format: ``Token`` auth, mem0's paths under /mem0."""

    def __init__(self, key: str | None, scheme: str = "Token") -> None:
        self.client = Client()
        self.headers = {"Authorization": f"{scheme} {key}"} if key is not None else {}

    def call(self, method: str, path: str, body: object = None, **params: str):
        query = "&".join(f"{k}={v}" for k, v in params.items())
        url = f"/mem0{path}" + (f"?{query}" if query else "")
        data = json.dumps(body) if body is not None else None
        return getattr(self.client, method)(url, data=data, content_type="application/json", headers=self.headers)

    def add(self, text: str, **fields):
        return self.call("post", "/v3/memories/add/", {"messages": [{"role": "user", "content": text}], **fields})


@pytest.fixture
def mem0(alice, store) -> Mem0Client:
    return Mem0Client(key_for(alice))


@pytest.fixture
def mem0_bob(bob, store) -> Mem0Client:
    return Mem0Client(key_for(bob))


def test_ping_validates_the_key_and_says_what_it_is(mem0):
    answer = mem0.call("get", "/v1/ping/")
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "ok",
        "org_id": "amem",
        "project_id": "alice",
        "user_email": None,
        "amem": {"kind": "agent", "agent": "alice"},
    }
    assert Mem0Client("amem_nope").call("get", "/v1/ping/").status_code == 401
    assert Mem0Client(None).call("get", "/v1/ping/").status_code == 401


def test_a_bearer_key_works_too(alice, store):
    assert Mem0Client(key_for(alice), scheme="Bearer").call("get", "/v1/ping/").status_code == 200


def test_add_with_infer_runs_the_full_write_path_with_the_user_as_subject(mem0):
    answer = mem0.add(COFFEE, user_id="alex", run_id="chat-1", metadata={"source": "onboarding"})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["status"] == "SUCCEEDED"
    [result] = body["results"]
    assert (result["memory"], result["event"]) == (COFFEE, "ADD")
    note = Note.objects.get(pk=result["id"])
    assert (note.subjects, note.session, note.metadata, note.owner) == (
        ["alex"],
        "chat-1",
        {"source": "onboarding"},
        "alice",
    )
    assert note.keywords, "the full pipeline constructs the note"
    # The same text again: amem's exact-duplicate check, mem0's NONE.
    again = mem0.add(COFFEE, user_id="alex").json()["results"]
    assert [(r["id"], r["event"]) for r in again] == [(result["id"], "NONE")]


def test_add_without_infer_stores_each_message_as_given(mem0):
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "I moved to Lisbon last spring."},
        {"role": "assistant", "content": "Lisbon is lovely in the spring!"},
    ]
    body = mem0.call("post", "/v3/memories/add/", {"messages": messages, "user_id": "alex", "infer": False}).json()
    assert [r["memory"] for r in body["results"]] == [m["content"] for m in messages[1:]]
    notes = Note.objects.filter(pk__in=[r["id"] for r in body["results"]]).order_by("created_at")
    assert all(n.keywords == [] and n.subjects == ["alex"] for n in notes), "the episodic path: no model, as given"
    assert notes[1].context == messages[1]["content"], "each message keeps the one before as its context"


def test_a_short_message_without_infer_is_refused_by_name_and_nothing_is_written(mem0):
    messages = [{"role": "user", "content": "I moved to Lisbon last spring."}, {"role": "user", "content": "ok"}]
    answer = mem0.call("post", "/v3/memories/add/", {"messages": messages, "infer": False})
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("messages.1.content:")
    assert Note.objects.count() == 0


def test_with_infer_a_message_with_nothing_to_remember_adds_nothing(mem0):
    answer = mem0.add("ok!", user_id="alex")
    assert answer.status_code == 200
    assert answer.json()["results"] == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("custom_instructions", "only food"),
        ("app_id", "my-app"),
        ("expiration_date", "2030-01-01"),
        ("enable_graph", True),
    ],
)
def test_an_option_amem_cannot_honour_is_refused_by_name(mem0, field, value):
    answer = mem0.add(COFFEE, **{field: value})
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith(f"{field}: not supported by amem")
    assert Note.objects.count() == 0


def test_an_unknown_field_is_refused(mem0):
    answer = mem0.add(COFFEE, colour="blue")
    assert answer.status_code == 400
    assert "colour: unknown field" in answer.json()["detail"]


def test_get_returns_mem0s_memory_shape(mem0):
    memory_id = mem0.add(COFFEE, user_id="alex", metadata={"k": 1}).json()["results"][0]["id"]
    got = mem0.call("get", f"/v1/memories/{memory_id}/").json()
    assert set(got) == {
        "id",
        "memory",
        "user_id",
        "agent_id",
        "run_id",
        "app_id",
        "hash",
        "metadata",
        "categories",
        "created_at",
        "updated_at",
    }
    assert (got["memory"], got["user_id"], got["agent_id"], got["metadata"]) == (COFFEE, "alex", "alice", {"k": 1})
    assert len(got["categories"]) == 1 and got["categories"][0] == got["categories"][0].lower()


def _memories(client: Mem0Client, filters: dict, **params) -> list[str]:
    answer = client.call("post", "/v3/memories/", {"filters": filters}, **params)
    assert answer.status_code == 200, answer.content
    return [m["memory"] for m in answer.json()["results"]]


def test_get_all_reads_filters_with_and_or_not_dates_and_metadata(mem0):
    mem0.add(COFFEE, user_id="alex", run_id="r1", metadata={"topic": "food"}, timestamp=1714557600)  # 2024-05-01
    mem0.add(HIKING, user_id="alex", run_id="r2", metadata={"topic": "sport"}, timestamp=1722506400)  # 2024-08-01
    mem0.add(SAM, user_id="sam", metadata={"topic": "health"})
    assert sorted(_memories(mem0, {"user_id": "alex"})) == sorted([COFFEE, HIKING])
    assert _memories(mem0, {"AND": [{"user_id": "alex"}, {"run_id": "r2"}]}) == [HIKING]
    assert sorted(_memories(mem0, {"OR": [{"run_id": "r1"}, {"user_id": "sam"}]})) == sorted([COFFEE, SAM])
    assert _memories(mem0, {"AND": [{"user_id": "alex"}, {"NOT": {"run_id": "r1"}}]}) == [HIKING]
    may = {"user_id": "alex", "created_at": {"gte": "2024-05-01", "lte": "2024-05-01"}}
    assert _memories(mem0, may) == [COFFEE], "a date alone is the whole day"
    assert _memories(mem0, {"created_at": {"gt": "2024-05-01", "lt": "2024-12-31"}}) == [HIKING]
    assert _memories(mem0, {"metadata": {"topic": {"in": ["health", "sport"]}}, "user_id": "*"}) != []
    assert sorted(_memories(mem0, {"metadata": {"topic": {"in": ["health", "sport"]}}})) == sorted([HIKING, SAM])
    assert _memories(mem0, {"user_id": {"icontains": "SA"}}) == [SAM]


def test_get_all_pages_and_counts(mem0):
    for text in (COFFEE, HIKING, SAM):
        mem0.add(text, user_id="alex", infer=False)
    answer = mem0.call("post", "/v3/memories/", {"filters": {"user_id": "alex"}}, page="1", page_size="2").json()
    assert (answer["count"], len(answer["results"]), answer["previous"]) == (3, 2, None)
    assert answer["next"] is not None
    last = mem0.call("post", "/v3/memories/", {"filters": {"user_id": "alex"}}, page="2", page_size="2").json()
    assert (len(last["results"]), last["next"]) == (1, None)


def test_a_filter_amem_cannot_read_is_a_400_naming_where(mem0):
    for filters, where in [
        ({"AND": [{"user_id": "alex"}, {"colour": "red"}]}, "filters.AND.1.colour"),
        ({"user_id": {"like": "al%"}}, "filters.user_id.like"),
        ({"created_at": {"gte": "last week"}}, "filters.created_at.gte"),
        ({"app_id": "x"}, "filters.app_id"),
    ]:
        answer = mem0.call("post", "/v3/memories/", {"filters": filters})
        assert answer.status_code == 400, filters
        assert answer.json()["detail"].startswith(where), answer.json()


def test_search_keeps_to_the_user_and_answers_with_scores(mem0, drain):
    mem0.add(COFFEE, user_id="alex")
    mem0.add(SAM, user_id="sam")
    mem0.add("The office coffee machine is broken again.", infer=False)  # nobody's: not alex's
    drain()
    answer = mem0.call("post", "/v3/memories/search/", {"query": "coffee", "filters": {"user_id": "alex"}})
    assert answer.status_code == 200, answer.content
    results = answer.json()["results"]
    assert [r["memory"] for r in results] == [COFFEE]
    assert isinstance(results[0]["score"], float) and results[0]["user_id"] == "alex"
    assert Note.objects.get(pk=results[0]["id"]).retrieval_count == 1, "what is returned counts as used"


def test_update_keeps_the_old_text_in_history_and_delete_retires(mem0):
    memory_id = mem0.add(COFFEE, user_id="alex").json()["results"][0]["id"]
    new = "Alex drinks black filter coffee since May 2024, no milk."
    updated = mem0.call("put", f"/v1/memories/{memory_id}/", {"text": new, "metadata": {"checked": True}})
    assert updated.status_code == 200, updated.content
    assert (updated.json()["memory"], updated.json()["metadata"]) == (new, {"checked": True})
    assert mem0.call("delete", f"/v1/memories/{memory_id}/").json() == {"message": "Memory deleted successfully!"}
    assert mem0.call("get", f"/v1/memories/{memory_id}/").status_code == 404
    note = Note.objects.get(pk=memory_id)
    assert not note.is_active and note.content == new, "retired, not erased"
    history = [(e["event"], e["old_memory"], e["new_memory"]) for e in shapes_history(note)]
    assert history == [("ADD", None, COFFEE), ("UPDATE", COFFEE, new), ("DELETE", new, None)]


def shapes_history(note: Note) -> list[dict]:
    from surfaces.api.mem0 import shapes

    return shapes.history(note, NoteEvent.objects.filter(note=note).order_by("created_at", "pk"))


def test_history_is_served_in_mem0s_shape(mem0):
    memory_id = mem0.add(COFFEE, user_id="alex").json()["results"][0]["id"]
    mem0.call("put", f"/v1/memories/{memory_id}/", {"text": "Alex drinks black filter coffee, no milk."})
    entries = mem0.call("get", f"/v1/memories/{memory_id}/history/").json()
    assert [e["event"] for e in entries] == ["ADD", "UPDATE"]
    assert entries[1]["old_memory"] == COFFEE and entries[1]["memory_id"] == memory_id


def test_delete_all_needs_someone_and_retires_only_their_memories(mem0):
    mem0.add(COFFEE, user_id="alex")
    mem0.add(SAM, user_id="sam")
    refused = mem0.call("delete", "/v1/memories/")
    assert refused.status_code == 400 and "user_id, agent_id or run_id" in refused.json()["detail"]
    done = mem0.call("delete", "/v1/memories/", user_id="alex").json()
    assert done["count"] == 1
    assert [n.content for n in Note.objects.active()] == [SAM]


def test_entities_lists_users_agents_and_runs(mem0):
    mem0.add(COFFEE, user_id="alex", run_id="r1")
    mem0.add(HIKING, user_id="alex")
    mem0.add(SAM, user_id="sam", run_id="r1")
    results = mem0.call("get", "/v1/entities/").json()["results"]
    assert {(e["type"], e["name"], e["total_memories"]) for e in results} == {
        ("agent", "alice", 3),
        ("user", "alex", 2),
        ("user", "sam", 1),
        ("run", "r1", 2),
    }


def test_batch_changes_all_or_nothing(mem0, mem0_bob):
    ids = [mem0.add(t, user_id="alex").json()["results"][0]["id"] for t in (COFFEE, HIKING)]
    foreign = mem0_bob.add(SAM, user_id="sam").json()["results"][0]["id"]
    refused = mem0.call("delete", "/v1/batch/", {"memories": [{"memory_id": ids[0]}, {"memory_id": foreign}]})
    assert refused.status_code == 404
    assert Note.objects.active().count() == 3, "one memory that is not the agent's refuses the whole batch"
    done = mem0.call("delete", "/v1/batch/", {"memories": [{"memory_id": i} for i in ids]})
    assert done.status_code == 200 and Note.objects.active().count() == 1


def test_a_key_sees_only_its_own_agents_memories(mem0, mem0_bob, drain):
    memory_id = mem0.add(COFFEE, user_id="alex").json()["results"][0]["id"]
    drain()
    assert mem0_bob.call("get", f"/v1/memories/{memory_id}/").status_code == 404
    assert mem0_bob.call("put", f"/v1/memories/{memory_id}/", {"text": "Bob overwrites it all."}).status_code == 404
    assert _memories(mem0_bob, {"user_id": "alex"}) == []
    found = mem0_bob.call("post", "/v3/memories/search/", {"query": "coffee", "filters": {"user_id": "alex"}})
    assert found.json()["results"] == []
    assert [e["name"] for e in mem0_bob.call("get", "/v1/entities/").json()["results"]] == ["bob"]
    # An agent key cannot name another agent.
    answer = mem0_bob.call("post", "/v3/memories/", {"filters": {"agent_id": "alice"}})
    assert answer.status_code == 403


def test_a_gateway_key_acts_for_the_agent_named_in_agent_id(db, store):
    gateway = Gateway.objects.create(prefix="crew-")
    client = Mem0Client(GatewayKey.issue(gateway)[1])
    assert client.add(COFFEE, user_id="alex").status_code == 400, "a gateway key must name its agent"
    first = client.add(COFFEE, user_id="alex", agent_id="crew-writer").json()["results"][0]["id"]
    client.add(HIKING, user_id="alex", agent_id="crew-critic")
    assert _memories(client, {"AND": [{"agent_id": "crew-writer"}, {"user_id": "alex"}]}) == [COFFEE]
    assert _memories(client, {"agent_id": "crew-critic"}) == [HIKING]
    assert client.call("get", f"/v1/memories/{first}/", agent_id="crew-critic").status_code == 404
    assert client.add(SAM, agent_id="other-agent").status_code == 403
    names = {(e["type"], e["name"]) for e in client.call("get", "/v1/entities/").json()["results"]}
    assert names == {("agent", "crew-writer"), ("agent", "crew-critic"), ("user", "alex")}


def test_a_mem0_call_amem_does_not_serve_is_a_404_naming_it(mem0):
    answer = mem0.call("post", "/v1/exports/", {"schema": {}})
    assert answer.status_code == 404
    assert "POST /v1/exports/" in answer.json()["detail"]


def test_erasing_a_note_empties_its_metadata_too(alice, mem0):
    memory_id = mem0.add(COFFEE, user_id="alex", metadata={"said_by": "Alex, at the café"}).json()["results"][0]["id"]
    erased = Client().delete(
        f"/api/v1/memories/{memory_id}?purge=true", headers={"Authorization": f"Bearer {key_for(alice)}"}
    )
    assert erased.status_code == 200, erased.content
    assert Note.objects.get(pk=memory_id).metadata == {}


def test_the_mem0_api_has_its_own_openapi_page(db):
    schema = Client().get("/mem0/openapi.json")
    assert schema.status_code == 200
    assert "/mem0/v3/memories/search/" in schema.json()["paths"]
    assert Client().get("/api/v1/openapi.json").status_code == 200


def test_a_search_scoped_to_the_user_asks_for_a_small_pool_a_narrower_filter_a_deeper_one(mem0, monkeypatch):
    from surfaces.api.mem0 import routes

    asked: list[int] = []
    monkeypatch.setattr(routes, "search", lambda *a, limit, **kw: asked.append(limit) or [])
    mem0.call("post", "/v3/memories/search/", {"query": "coffee", "filters": {"user_id": "alex"}, "top_k": 5})
    mem0.call(
        "post", "/v3/memories/search/", {"query": "coffee", "filters": {"AND": [{"user_id": "alex"}, {"run_id": "r1"}]}}
    )
    mem0.call(
        "post", "/v3/memories/search/", {"query": "coffee", "filters": {"user_id": "alex"}, "categories": ["personal"]}
    )
    assert asked == [15, 30, 30]


def test_with_infer_a_message_amem_cannot_store_refuses_the_call_before_any_is_written(mem0):
    messages = [{"role": "user", "content": COFFEE}, {"role": "user", "content": "x" * 20_001}]
    answer = mem0.call("post", "/v3/memories/add/", {"messages": messages, "user_id": "alex"})
    assert answer.status_code == 400 and answer.json()["detail"].startswith("messages.1.content:")
    bad_metadata = mem0.add(COFFEE, metadata={"blob": "y" * 5000})
    assert bad_metadata.status_code == 400 and "metadata" in bad_metadata.json()["detail"]
    assert Note.objects.count() == 0


def test_get_all_and_delete_all_find_a_user_by_exact_name_whatever_its_letters(mem0):
    for user in ("李雷", "al", "alex", 'o"neil'):
        mem0.add(f"{user} keeps a notebook of every book read this year.", user_id=user, infer=False)
    for user in ("李雷", "al", 'o"neil'):
        assert _memories(mem0, {"user_id": user}) == [f"{user} keeps a notebook of every book read this year."]
    assert mem0.call("delete", "/v1/memories/", user_id="al").json()["count"] == 1
    assert sorted(n.subjects[0] for n in Note.objects.active()) == sorted(["李雷", "alex", 'o"neil'])


def test_a_search_result_carries_the_turns_around_it(mem0, as_alice, drain):
    turns = [
        {"text": text, "session": "s1", "subjects": ["alex"]}
        for text in (
            "Where should we eat tonight?",
            "Alex is vegetarian and allergic to nuts.",
            "Noted, no satay then.",
        )
    ]
    assert as_alice.post("/conversations", {"turns": turns}).status_code == 201
    drain()
    answer = mem0.call("post", "/v3/memories/search/", {"query": "vegetarian nuts", "filters": {"user_id": "alex"}})
    assert answer.status_code == 200, answer.content
    first = answer.json()["results"][0]
    assert first["memory"] == turns[1]["text"]
    assert [(s["memory"], s["position"]) for s in first["surrounding"]] == [
        (turns[0]["text"], "before"),
        (turns[2]["text"], "after"),
    ]
