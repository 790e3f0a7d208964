"""How the recall bundle spends its budget: filled when asked, sessions taking turns, every line counted."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest

from engine.layers import tokens
from engine.layers.recall_notes import diversified
from engine.retrieval.search import Result

GARDEN = [
    "We planted {} tomatoes in the garden bed by the fence today.",
    "The garden needs watering every morning now that {} seedlings are up.",
    "I moved {} pots of basil into the garden for more sun.",
    "Our garden compost heap got {} new buckets of leaves.",
]


def _turns(session: str, day: str, count: int, offset: int = 0) -> list[dict]:
    return [
        {
            "text": GARDEN[i % len(GARDEN)].format(i + offset + 2) + f" Note {i + offset}.",
            "session": session,
            "occurred_at": f"{day}T10:00:00Z",
        }
        for i in range(count)
    ]


@pytest.fixture
def garden_talk(as_alice, store):
    """Three sessions of garden talk on three days, 20 turns each."""
    for n, day in enumerate(["2026-03-01", "2026-04-01", "2026-05-01"]):
        r = as_alice.post("/conversations", {"turns": _turns(f"s{n}", day, 20, offset=20 * n)})
        assert r.status_code in (200, 201), r.content
    return as_alice


def test_a_large_budget_is_filled(garden_talk):
    small = garden_talk.post("/recall", {"query": "garden tomatoes basil", "token_budget": 500}).json()
    large = garden_talk.post("/recall", {"query": "garden tomatoes basil", "token_budget": 2000}).json()
    assert small["tokens"] <= 500 and large["tokens"] <= 2000

    # 60 matching turns of about 17 tokens: all of them fit in 2,000 tokens, so all are in, as
    # matches or as the turns written around one; each once.
    def carried(body: dict) -> list[str]:
        return [i for n in body["notes"] for i in (n["id"], *(s["id"] for s in n["surrounding"]))]

    assert len(carried(small)) < 30
    assert len(carried(large)) == len(set(carried(large))) == 60


def test_limit_caps_the_notes(garden_talk):
    body = garden_talk.post("/recall", {"query": "garden tomatoes basil", "token_budget": 2000, "limit": 5}).json()
    assert len(body["notes"]) == 5


def test_every_header_and_day_line_is_counted(garden_talk):
    body = garden_talk.post("/recall", {"query": "garden tomatoes basil", "token_budget": 300}).json()
    text = body["text"]
    assert body["tokens"] == tokens.count(text) <= 300
    assert text.startswith("# Relevant notes\n[1 March 2026]\n- ") or "[1 March 2026]" not in text
    days = [line for line in text.splitlines() if line.startswith("[")]
    # One line per day, days in order, and each note is under its day.
    assert days == sorted(set(days), key=days.index)
    assert len(days) == len({n["created_at"][:10] for n in body["notes"]})
    # One line per note, and one per turn written around it.
    lines = sum(line.startswith("- ") for line in text.splitlines())
    assert lines == len(body["notes"]) + sum(len(n["surrounding"]) for n in body["notes"])


def test_a_budget_without_room_for_header_and_note_holds_no_note(garden_talk):
    note = "- " + _turns("x", "2026-03-01", 1)[0]["text"]
    # The header, a day line and one note line need more than this.
    budget = max(64, tokens.count(note))
    body = garden_talk.post("/recall", {"query": "garden tomatoes basil", "token_budget": budget}).json()
    assert body["tokens"] <= budget
    for item in body["notes"]:
        assert item["content"] in body["text"]


def test_sessions_take_turns_in_the_bundle(as_alice, store):
    # One session says the thing asked about many times over; another says it once, a bit less alike.
    crowded = [
        {
            "text": f"Our trip to Kyoto in spring was lovely, day {i} at the temples; we walked from the station "
            "past the river and the old wooden houses, and stayed until the evening bells.",
            "session": "a",
        }
        for i in range(12)
    ]
    other = [{"text": "Kyoto in spring: the trip to the temples cost 900 euros.", "session": "b"}]
    as_alice.post("/conversations", {"turns": crowded})
    as_alice.post("/conversations", {"turns": other})
    # 400 tokens: room for about nine of these notes, and the search is asked for 16.
    body = as_alice.post("/recall", {"query": "Kyoto trip spring temples", "token_budget": 400}).json()
    contents = [n["content"] for n in body["notes"]]
    assert 2 <= len(contents) < 13
    assert "Kyoto in spring: the trip to the temples cost 900 euros." in contents


def _result(session: str, score: float, via: str = "match") -> Result:
    note = SimpleNamespace(pk=uuid.uuid4(), session=session, layer="")
    return Result(note, via, 0.5, score, 0.0)  # type: ignore[arg-type]


def test_diversified_lets_a_second_session_in_before_a_third_note_of_the_first():
    a1, a2, a3, b1 = _result("a", 0.9), _result("a", 0.88), _result("a", 0.86), _result("b", 0.7)
    link = _result("a", 0.0, via="link")
    order = diversified([a1, a2, a3, b1, link], decay=0.85)
    # a1 0.9; then a2 0.88·0.85 = 0.748 beats b1 0.7; then b1 0.7 beats a3 0.86·0.7225 = 0.621.
    assert order == [a1, a2, b1, a3, link]


def test_notes_outside_sessions_are_never_held_back():
    one, two = _result("", 0.9), _result("", 0.8)
    assert diversified([one, two], decay=0.1) == [one, two]


def test_a_filled_bundle_leaves_room_for_the_wrapper(garden_talk):
    wrapper = "<amem-memory>\nWhat you remember about this user (may be outdated):\n\n</amem-memory>"
    body = garden_talk.post(
        "/recall", {"query": "garden tomatoes basil", "token_budget": 400, "wrapper": wrapper}
    ).json()
    framing = tokens.count(wrapper)
    assert body["tokens"] == tokens.count(body["text"]) + framing <= 400
    # Filled: what is left after the wrapper is used up to less than one more note.
    assert body["tokens"] > 400 - 30
