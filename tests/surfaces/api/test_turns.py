"""POST /turns: the CRUD gate over the latest exchange; every op is reported, one bad op skips alone."""

from __future__ import annotations

import pytest

from engine.retrieval.search import search
from memories.models import Note

STATEMENT = "My favourite editor is Helix and I use it every day at work."


def test_a_durable_statement_becomes_a_memory(as_alice, store):
    messages = [{"role": "user", "content": STATEMENT}, {"role": "assistant", "content": "Noted!"}]
    response = as_alice.post("/turns", {"messages": messages, "sources": ["t-1"]})
    assert response.status_code == 200
    body = response.json()
    assert body["considered"] == []
    [op] = body["ops"]
    assert (op["action"], op["status"], op["write_outcome"], op["fact"]) == ("NEW", "applied", "created", STATEMENT)
    note = Note.objects.get(pk=op["note_id"])
    assert (note.owner, note.sources) == ("alice", ["t-1"])


def test_small_talk_changes_nothing(as_alice, store, snapshot):
    before = snapshot()
    response = as_alice.post("/turns", {"messages": [{"role": "user", "content": "hi!"}]})
    assert response.json() == {"ops": [], "considered": [], "fell_back": []}
    assert snapshot() == before


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_updates_and_deletes_are_applied_and_a_bad_op_is_skipped_alone(alice, as_alice, store, provider):
    staging = as_alice.post("/memories/episodic", {"text": "The staging database runs MySQL 8 on a shared host."})
    staging = staging.json()
    laptop = as_alice.post("/memories/episodic", {"text": "The user's old laptop is a ThinkPad X220."}).json()
    user = "We moved staging from MySQL to PostgreSQL 16 last week; my old ThinkPad is gone."
    shown = [str(r.note.pk) for r in search(user, alice, limit=5, heat=False, links=False)]
    provider.reply_json(
        [
            {"action": "UPDATE", "existing_idx": shown.index(staging["id"]), "fact": "Staging runs PostgreSQL 16."},
            {"action": "NEW", "fact": "ok"},
            {"action": "DELETE", "existing_idx": shown.index(laptop["id"]), "fact": "old laptop"},
        ],
        role="crud",
    )
    response = as_alice.post("/turns", {"messages": [{"role": "user", "content": user}]})
    assert response.status_code == 200
    body = response.json()
    assert body["considered"] == shown
    assert [(o["action"], o["status"], o["note_id"]) for o in body["ops"]] == [
        ("UPDATE", "applied", staging["id"]),
        ("NEW", "skipped", None),
        ("DELETE", "applied", laptop["id"]),
    ]
    assert body["ops"][1]["reason"].startswith("[quality]")
    assert Note.objects.get(pk=staging["id"]).content == "Staging runs PostgreSQL 16."
    assert Note.objects.get(pk=laptop["id"]).is_active is False


def test_the_gate_only_sees_the_callers_notes(as_alice, as_bob, store, provider):
    as_bob.post("/memories/episodic", {"text": "Bob's staging database runs MySQL 8 on a shared host."})
    provider.reply_json([{"action": "DELETE", "existing_idx": 0, "fact": "staging"}], role="crud")
    forget = [{"role": "user", "content": "Forget what you know about staging."}]
    response = as_alice.post("/turns", {"messages": forget})
    assert response.json()["considered"] == []
    assert response.json()["ops"] == []  # an index into nothing is dropped by the reply validator
    assert Note.objects.filter(is_active=True).count() == 1


@pytest.mark.parametrize(
    "body, detail",
    [
        ({"messages": []}, "messages: List should have at least 1 item"),
        ({"messages": [{"content": STATEMENT}]}, "messages.0.role: Field required"),
        ({"messages": [{"role": "", "content": STATEMENT}]}, "messages.0.role: String should have at least 1"),
        ({"messages": [{"role": "user", "text": STATEMENT}]}, "messages.0.content: Field required"),
        ({"messages": [{"role": "user", "content": STATEMENT}] * 101}, "messages: List should have at most 100 items"),
        ({"messages": "hello there"}, "messages: Input should be a valid list"),
        ({"messages": [{"role": "user", "content": STATEMENT}], "agent": "bob"}, "agent: unknown field"),
    ],
)
def test_a_malformed_dialogue_is_400(body, detail, as_alice, store, snapshot):
    before = snapshot()
    response = as_alice.post("/turns", body)
    assert response.status_code == 400
    assert response.json()["detail"].startswith(detail)
    assert snapshot() == before


def test_a_relative_date_is_read_against_the_turns_time_and_the_fact_dated_then(as_alice, store):
    messages = [{"role": "user", "content": "I moved to Lisbon last month with my dog Rex."}]
    response = as_alice.post("/turns", {"messages": messages, "occurred_at": "2026-11-05T10:00:00+00:00"})
    [op] = response.json()["ops"]
    assert op["fact"] == "I moved to Lisbon last month (October 2026) with my dog Rex."
    assert Note.objects.get(pk=op["note_id"]).created_at.isoformat() == "2026-11-05T10:00:00+00:00"
    chinese = [{"role": "user", "content": "我上周开始学日语了。"}]
    [op] = as_alice.post("/turns", {"messages": chinese, "occurred_at": "2026-11-05T10:00:00+08:00"}).json()["ops"]
    assert op["fact"] == "我上周（2026年10月26日至11月1日）开始学日语了。"


def test_a_request_or_a_question_is_not_kept_but_a_statement_beside_it_is(as_alice, store):
    request = [{"role": "user", "content": "Tell me everything about my sister Brigitte and what she likes."}]
    assert as_alice.post("/turns", {"messages": request}).json()["ops"] == []
    mixed = [
        {"role": "user", "content": "Who keeps bees in the family? Also, my cousin Radka collects antique barometers."}
    ]
    assert [op["fact"] for op in as_alice.post("/turns", {"messages": mixed}).json()["ops"]] == [
        "My cousin Radka collects antique barometers."
    ]


def test_a_memorys_history_lists_its_changes_oldest_first(as_alice, store):
    created = as_alice.post("/memories", {"text": "Alex drinks black filter coffee every morning."}).json()
    as_alice.patch(f"/memories/{created['id']}", {"text": "Alex switched to green tea in November."})
    history = as_alice.get(f"/memories/{created['id']}/history").json()
    assert history["id"] == created["id"]
    actions = [e["action"] for e in history["events"]]
    assert actions[0] == "create"
    assert history["events"][-1]["after"] == "Alex switched to green tea in November."
    assert as_alice.get("/memories/00000000-0000-0000-0000-000000000000/history").status_code == 404
