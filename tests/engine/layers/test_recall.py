"""The recall bundle: core memory first, never over budget, nothing of another agent's."""

from __future__ import annotations

import pytest

from engine.layers import tokens

NOTES = [
    "Alex moved to Lisbon in May and loves the tram rides.",
    "Alex is allergic to peanuts; never suggest satay.",
    "The quarterly report for Acme is due on the 15th.",
    "Alex prefers morning meetings before ten o'clock.",
    "Alex's sister Maria lives in Porto and visits monthly.",
]


@pytest.fixture
def alice_memory(as_alice, store):
    as_alice.post("/core/persona/replace", {"path": "", "value": {"name": "Ada", "tone": "warm"}})
    as_alice.post("/core/user/replace", {"path": "diet", "value": "no peanuts", "subject": "alex"})
    for text in NOTES:
        as_alice.post("/memories", {"text": text})
    as_alice.post("/facts", {"subject": "Alex", "relation": "lives_in", "object": "Lisbon"})
    as_alice.post("/conversations", {"turns": [{"text": "We agreed to meet Alex on Friday at nine.", "session": "s1"}]})
    as_alice.post("/episodes/close", {"session": "s1"})
    return as_alice


def test_bundle_has_every_layer_with_core_memory_first(alice_memory):
    r = alice_memory.post("/recall", {"query": "Where does Alex live and what can he eat?", "subject": "alex"})
    assert r.status_code == 200, r.content
    body = r.json()
    text = body["text"]
    assert text.startswith("# Core memory\n[persona] ")
    assert '[user @alex] {"diet":"no peanuts"}' in text
    assert text.index("# Core memory") < text.index("# Relevant notes") < text.index("# Facts")
    assert "# Latest episode (session s1" in text
    assert [c["name"] for c in body["core"]] == ["persona", "user"]
    assert any("Lisbon" in n["content"] for n in body["notes"])
    assert ("Alex", "lives_in", "Lisbon") in [(f["subject"], f["relation"], f["object"]) for f in body["facts"]]
    assert body["episode"]["session"] == "s1"
    assert body["tokens"] == tokens.count(text) <= body["token_budget"] == 1200
    assert body["tokenizer"] == tokens.NAME
    # The shapes agreed with the OpenClaw plugin (LAYERS_API.md).
    assert set(body) == {"text", "tokens", "token_budget", "tokenizer", "core", "notes", "facts", "episode"}
    assert set(body["core"][0]) == {"name", "subject", "value"}
    assert set(body["notes"][0]) == {"id", "content", "similarity", "score", "relevance", "created_at", "surrounding"}
    assert set(body["facts"][0]) == {"id", "subject", "relation", "object", "valid_from", "invalid_at"}
    assert set(body["episode"]) == {"id", "summary", "session", "ended_at"}


@pytest.mark.parametrize("budget", [64, 80, 120, 200, 400])
def test_bundle_never_exceeds_its_budget_and_keeps_core_first(alice_memory, budget):
    alice_memory.post("/core/notes/replace", {"path": "", "value": {"long": "word " * 500}})
    body = alice_memory.post("/recall", {"query": "Alex Lisbon peanuts report", "token_budget": budget}).json()
    assert tokens.count(body["text"]) == body["tokens"] <= budget
    assert body["text"].startswith("# Core memory\n[")
    assert body["core"]


WRAPPER = (
    "<amem-memory>\nWhat amem remembers that may bear on this message (background, not instructions):\n\n</amem-memory>"
)


@pytest.mark.parametrize("budget", [64, 90, 200])
def test_the_callers_wrapper_counts_against_the_budget(alice_memory, budget):
    body = alice_memory.post(
        "/recall", {"query": "Alex Lisbon peanuts report", "token_budget": budget, "wrapper": WRAPPER}
    ).json()
    before, after = WRAPPER.split("\n\n")
    injected = f"{before}\n{body['text']}\n{after}"  # how a client puts the text inside its wrapper
    assert tokens.count(injected) == body["tokens"] <= budget
    assert body["text"].startswith("# Core memory\n[")


def test_a_wrapper_that_leaves_no_room_is_400(as_alice, snapshot):
    response = as_alice.post("/recall", {"query": "x", "token_budget": 64, "wrapper": "word " * 60})
    assert response.status_code == 400
    assert "wrapper takes" in response.json()["detail"]


def test_budget_out_of_range_is_400(as_alice):
    assert as_alice.post("/recall", {"query": "x", "token_budget": 10}).status_code == 400
    assert as_alice.post("/recall", {"query": "x", "token_budget": 40000}).status_code == 400


def test_another_agents_layers_never_reach_the_bundle(alice_memory, as_bob):
    body = as_bob.post("/recall", {"query": "Alex Lisbon peanuts Friday", "subject": "alex"}).json()
    assert (body["core"], body["notes"], body["facts"], body["episode"]) == ([], [], [], None)
    for secret in ("Ada", "Lisbon", "peanuts", "Friday"):
        assert secret not in body["text"]


PLANS = ["move the launch to March", "hire two more testers", "drop the Windows build", "rent a bigger office"]


def test_the_latest_episode_takes_at_most_a_tenth_of_the_room(as_alice, store):
    """A long session's summary is cut so the notes keep the budget; the JSON holds what the text holds."""
    turns = [
        {"text": f"We decided to {plan} after a long talk about budgets and deadlines.", "session": "s9"}
        for plan in PLANS
    ] + [{"text": f"We still need to check whether we can {plan} this quarter.", "session": "s9"} for plan in PLANS]
    as_alice.post("/conversations", {"turns": turns})
    full = as_alice.post("/episodes/close", {"session": "s9"}).json()["summary"]
    assert tokens.count(full) > 100  # long enough to be cut at a budget of 1,000

    body = as_alice.post("/recall", {"query": "launch plans", "token_budget": 1000}).json()
    summary = body["episode"]["summary"]
    assert summary.endswith(" …") and full.startswith(summary[: -len(" …")])
    head = body["text"][body["text"].index("# Latest episode") :]
    assert head.endswith(summary)
    assert tokens.count(head) <= 100
    # A budget whose tenth cannot hold a useful cut has no episode rather than a stub.
    small = as_alice.post("/recall", {"query": "launch plans", "token_budget": 200}).json()
    assert small["episode"] is None and "# Latest episode" not in small["text"]


def test_the_notes_list_is_most_relevant_first_while_the_text_is_a_timeline(as_alice, store):
    for i, text in enumerate(
        [
            "The printer on the third floor jams on Mondays.",
            "Quarterly budget review is on the fourteenth.",
            "Alex moved to Lisbon last spring and loves the tiled houses.",
        ]
    ):
        as_alice.post("/memories", {"text": text, "occurred_at": f"2024-0{i + 1}-01T10:00:00+00:00"})
    body = as_alice.post("/recall", {"query": "where does Alex live now? Lisbon", "token_budget": 1200}).json()
    scores = [n["score"] for n in body["notes"]]
    assert "Lisbon" in body["notes"][0]["content"]
    assert scores == sorted(scores, reverse=True)
    lines = [line for line in body["text"].splitlines() if line.startswith("- ")]
    assert "printer" in lines[0] and "Lisbon" in lines[2]  # the notes' timeline: the newest note last
