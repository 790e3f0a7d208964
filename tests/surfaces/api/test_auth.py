"""Bearer keys: the key decides the agent; missing, unknown, revoked or inactive → 401, nothing done."""

from __future__ import annotations

import hashlib

import pytest

from memories.models import Agent, ApiKey, Gateway, GatewayKey, Note
from memories.models.keys import USE_RECORD_EVERY
from tests.surfaces.api.conftest import AgentClient

TEXT = "The staging database runs PostgreSQL 16 on a dedicated host."

ROUTES = [
    ("post", "/memories", {"text": TEXT}),
    ("post", "/memories/episodic", {"text": TEXT}),
    ("post", "/conversations", {"turns": [{"text": TEXT}]}),
    ("post", "/memories/search", {"query": "staging database"}),
    ("get", "/memories/count", None),
    ("get", "/memories/00000000-0000-0000-0000-000000000000", None),
    ("patch", "/memories/00000000-0000-0000-0000-000000000000", {"text": TEXT}),
    ("delete", "/memories/00000000-0000-0000-0000-000000000000", None),
    ("post", "/turns", {"messages": [{"role": "user", "content": TEXT}]}),
]


def call(client: AgentClient, method: str, path: str, body):
    if method in ("get", "delete"):
        return getattr(client, method)(path)
    return getattr(client, method)(path, body)


def assert_refused(response) -> None:
    assert response.status_code == 401
    assert response.json() == {"detail": "missing, unknown or revoked API key"}
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("method, path, body", ROUTES)
def test_every_route_requires_a_key(method, path, body, alice, store):
    assert_refused(call(AgentClient(None), method, path, body))
    assert not Note.objects.exists()


@pytest.mark.parametrize("method, path, body", ROUTES)
def test_an_unknown_key_is_refused(method, path, body, alice, store):
    ApiKey.issue(alice)
    assert_refused(call(AgentClient("amem_not-a-real-key"), method, path, body))
    assert not Note.objects.exists()


@pytest.mark.parametrize("header", ["Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer ", "Token abc"])
def test_other_schemes_and_empty_tokens_are_refused(header, as_alice, store):
    assert_refused(as_alice.post("/memories", {"text": TEXT}, Authorization=header))
    assert not Note.objects.exists()


def test_a_revoked_key_is_refused(alice, store):
    key, raw = ApiKey.issue(alice)
    assert AgentClient(raw).get("/memories/count").status_code == 200
    key.revoke()
    assert_refused(AgentClient(raw).post("/memories", {"text": TEXT}))
    assert not Note.objects.exists()


def test_an_inactive_agents_key_is_refused(alice, store):
    _, raw = ApiKey.issue(alice)
    alice.is_active = False
    alice.save()
    assert_refused(AgentClient(raw).post("/memories", {"text": TEXT}))
    assert not Note.objects.exists()


def test_another_key_of_the_same_agent_still_works_after_one_is_revoked(alice, store):
    old, _old_raw = ApiKey.issue(alice)
    _, new_raw = ApiKey.issue(alice)
    old.revoke()
    assert AgentClient(new_raw).post("/memories", {"text": TEXT}).status_code == 201


def test_the_key_decides_the_agent(as_alice, as_bob, store):
    response = as_alice.post("/memories", {"text": TEXT})
    note = Note.objects.get(pk=response.json()["id"])
    assert (note.agent_id, note.owner, note.readers, note.writers) == ("alice", "alice", ["alice"], ["alice"])
    # Bob's key sees nothing of it, whatever the query string says.
    assert as_bob.get("/memories/count?agent=alice&agentId=alice").json() == {"count": 0}
    assert as_alice.get("/memories/count?agentId=bob").json() == {"count": 1}


@pytest.mark.parametrize("field", ["agent", "agent_id", "agentId", "owner", "readers"])
def test_no_body_field_can_name_an_agent(field, as_alice, bob, store):
    response = as_alice.post("/memories", {"text": TEXT, field: "bob"})
    assert response.status_code == 400
    assert response.json() == {"detail": f"{field}: unknown field"}
    assert not Note.objects.exists()


def test_a_used_key_records_when(alice, store):
    key, raw = ApiKey.issue(alice)
    assert key.last_used_at is None
    AgentClient(raw).get("/memories/count")
    key.refresh_from_db()
    assert key.last_used_at is not None


def test_a_key_in_steady_use_is_recorded_once_a_minute(alice, store):
    """Not a write per request: the use is kept to the minute (memories/models/keys.py)."""
    key, raw = ApiKey.issue(alice)
    client = AgentClient(raw)
    client.get("/memories/count")
    key.refresh_from_db()
    first = key.last_used_at
    client.get("/memories/count")
    key.refresh_from_db()
    assert key.last_used_at == first
    # A minute later the next request records it again.
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=first - USE_RECORD_EVERY)
    client.get("/memories/count")
    key.refresh_from_db()
    assert key.last_used_at > first


@pytest.mark.parametrize(
    ("key_model", "owner_field", "make_owner"),
    [
        (ApiKey, "agent", lambda: Agent.objects.get(pk="alice")),
        (GatewayKey, "gateway", lambda: Gateway.objects.create(prefix="lab-")),
    ],
)
def test_a_key_stored_as_rows_always_were_still_authenticates(alice, key_model, owner_field, make_owner):
    # The row as every release has written it: the SHA-256 of the raw key and its first 12 characters.
    raw = "amem_" + "k" * 43
    owner = make_owner()
    key_model.objects.create(**{owner_field: owner}, prefix=raw[:12], hashed=hashlib.sha256(raw.encode()).hexdigest())
    assert key_model.authenticate(raw).owner == owner
    assert key_model.authenticate(raw + "x") is None
