"""Every text field of every route refuses what the database and tokenizer cannot take.

NUL, another control character and a lone surrogate, in each text field: 400 naming the field,
nothing written. The same rule (engine/text.py: storable) guards the review app and the CLI.
"""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from engine.write.pipeline import add_episodic
from memories.models import Note

BAD = {"nul": "sea\x00side", "bell": "sea\x07side", "lone surrogate": "sea\ud800side"}

GOOD_TEXT = "The lighthouse keeper logs the weather every evening."

# (method, path, a valid body, the field to spoil, how the answer names it)
ROUTES = [
    ("post", "/memories", {"text": GOOD_TEXT}, ("text",), "text"),
    ("post", "/memories", {"text": GOOD_TEXT, "subjects": ["x"]}, ("subjects", 0), "subjects.0"),
    ("post", "/memories", {"text": GOOD_TEXT, "sources": ["x"]}, ("sources", 0), "sources.0"),
    ("post", "/memories/episodic", {"text": GOOD_TEXT}, ("text",), "text"),
    ("post", "/memories/episodic", {"text": GOOD_TEXT, "context": "x"}, ("context",), "context"),
    ("post", "/memories/episodic", {"text": GOOD_TEXT, "subjects": ["x"]}, ("subjects", 0), "subjects.0"),
    ("post", "/memories/episodic", {"text": GOOD_TEXT, "sources": ["x"]}, ("sources", 0), "sources.0"),
    ("post", "/conversations", {"turns": [{"text": GOOD_TEXT}]}, ("turns", 0, "text"), "turns.0.text"),
    (
        "post",
        "/conversations",
        {"turns": [{"text": GOOD_TEXT, "session": "s"}]},
        ("turns", 0, "session"),
        "turns.0.session",
    ),
    (
        "post",
        "/conversations",
        {"turns": [{"text": GOOD_TEXT, "source": "s"}]},
        ("turns", 0, "source"),
        "turns.0.source",
    ),
    (
        "post",
        "/conversations",
        {"turns": [{"text": GOOD_TEXT, "subjects": ["s"]}]},
        ("turns", 0, "subjects", 0),
        "turns.0.subjects.0",
    ),
    ("post", "/memories/search", {"query": "weather"}, ("query",), "query"),
    ("post", "/memories/search", {"query": "weather", "subject": "s"}, ("subject",), "subject"),
    ("post", "/memories/search", {"query": "weather", "topics_filter": ["t"]}, ("topics_filter", 0), "topics_filter.0"),
    ("patch", "/memories/{note}", {"text": GOOD_TEXT}, ("text",), "text"),
    ("patch", "/memories/{note}", {"text": GOOD_TEXT, "sources": ["x"]}, ("sources", 0), "sources.0"),
    (
        "post",
        "/turns",
        {"messages": [{"role": "user", "content": GOOD_TEXT}]},
        ("messages", 0, "content"),
        "messages.0.content",
    ),
    (
        "post",
        "/turns",
        {"messages": [{"role": "user", "content": GOOD_TEXT}]},
        ("messages", 0, "role"),
        "messages.0.role",
    ),
    (
        "post",
        "/turns",
        {"messages": [{"role": "user", "content": GOOD_TEXT}], "sources": ["x"]},
        ("sources", 0),
        "sources.0",
    ),
    ("post", "/recall", {"query": "weather"}, ("query",), "query"),
    ("post", "/facts", {"subject": "ann", "relation": "likes", "object": "tea"}, ("subject",), "subject"),
    ("post", "/facts", {"subject": "ann", "relation": "likes", "object": "tea"}, ("relation",), "relation"),
    ("post", "/facts", {"subject": "ann", "relation": "likes", "object": "tea"}, ("object",), "object"),
]


def _spoil(body: dict, where: tuple, value: str) -> dict:
    import copy

    spoiled = copy.deepcopy(body)
    holder = spoiled
    for step in where[:-1]:
        holder = holder[step]
    holder[where[-1]] = value
    return spoiled


@pytest.fixture
def existing(alice, store) -> Note:
    return add_episodic("The harbour master rings the bell at noon.", alice)


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize(
    ("method", "path", "body", "where", "named"), ROUTES, ids=[f"{r[0]} {r[1]} {r[4]}" for r in ROUTES]
)
def test_a_text_field_the_database_cannot_take_is_a_400_naming_it(
    as_alice, existing, snapshot, method, path, body, where, named, bad
):
    before = snapshot()
    answer = getattr(as_alice, method)(path.format(note=existing.pk), _spoil(body, where, bad))
    assert answer.status_code == 400, answer.content
    assert answer.json()["detail"].startswith(f"{named}: "), answer.json()
    assert snapshot() == before


@pytest.mark.parametrize(("method", "path", "body", "where", "named"), ROUTES[:1] + ROUTES[11:12] + ROUTES[16:17])
def test_the_same_bodies_unspoiled_are_accepted(as_alice, existing, method, path, body, where, named):
    answer = getattr(as_alice, method)(path.format(note=existing.pk), body)
    assert answer.status_code in (200, 201), answer.content


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
def test_the_cli_refuses_the_same_characters_in_its_arguments(alice, store, bad):
    with pytest.raises(CommandError, match="query"):
        call_command("amem_search", "--agent", "alice", bad)
    with pytest.raises(CommandError, match="subject"):
        call_command("amem_search", "--agent", "alice", "--subject", bad, "weather")
    with pytest.raises(CommandError, match="agent"):
        call_command("amem_add", "--agent", bad, GOOD_TEXT)
    with pytest.raises(CommandError, match="text"):
        call_command("amem_add", "--agent", "alice", bad + " " + GOOD_TEXT)
    assert Note.objects.count() == 0


@pytest.mark.parametrize("bad", [BAD["nul"], BAD["bell"]], ids=["nul", "bell"])
def test_the_review_app_refuses_them_in_its_search_and_edit_forms(client, alice, existing, bad):
    from django.contrib.auth import get_user_model

    rita = get_user_model().objects.create_user("rita", password="pw-for-tests")
    alice.reviewers.add(rita)
    client.force_login(rita)
    found = client.get(f"/review/agents/alice/notes/?q={bad}")
    assert found.status_code == 400
    assert "query" in found.content.decode()
    edited = client.post(f"/review/notes/{existing.pk}/edit/", {"content": bad + " " + GOOD_TEXT})
    assert edited.status_code in (302, 422)
    existing.refresh_from_db()
    assert existing.content == "The harbour master rings the bell at noon." and existing.revision == 1


def test_a_lone_surrogate_cannot_reach_the_review_app(client, alice, existing):
    # Form and query bytes are decoded as UTF-8 with replacement: an encoded surrogate arrives as U+FFFD.
    from django.contrib.auth import get_user_model

    rita = get_user_model().objects.create_user("rita", password="pw-for-tests")
    alice.reviewers.add(rita)
    client.force_login(rita)
    assert client.get("/review/agents/alice/notes/?q=sea%ED%A0%80side").status_code == 200
