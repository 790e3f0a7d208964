"""Gateway keys: one key acting for many agents under the id prefix it owns, enforced by the server.

Each agent is created on first use and recorded as the gateway's; the gateway can never act for an
agent outside its prefix or one it did not create, an agent key can never name another agent, and
agents made through the same key see only their own memories.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from memories.models import Agent, ApiKey, Gateway, GatewayAgent, GatewayKey, Note
from tests.surfaces.api.conftest import AgentClient

PREFIX = "openclaw-home-"
TEXT = "The user's sister Ana lives in Porto and teaches piano."


@pytest.fixture
def gateway(db) -> Gateway:
    return Gateway.objects.create(prefix=PREFIX, name="home gateway")


@pytest.fixture
def gateway_key(gateway) -> str:
    return GatewayKey.issue(gateway)[1]


def acting(key: str, agent_id: str | None) -> AgentClient:
    client = AgentClient(key)
    if agent_id is not None:
        client.headers["X-Amem-Agent"] = agent_id
    return client


def test_a_gateway_key_creates_its_agent_on_first_use(gateway, gateway_key, store):
    response = acting(gateway_key, f"{PREFIX}main").post("/memories", {"text": TEXT})
    assert response.status_code == 201, response.content
    agent = Agent.objects.get(pk=f"{PREFIX}main")
    assert GatewayAgent.objects.get(agent=agent).gateway == gateway
    note = Note.objects.get(pk=response.json()["id"])
    assert (note.owner, note.agent_id) == (agent.pk, agent.pk)
    # The second request finds the agent it made: no second agent, no error.
    assert acting(gateway_key, f"{PREFIX}main").get("/memories/count").json() == {"count": 1}
    assert Agent.objects.filter(pk__startswith=PREFIX).count() == 1


def test_two_agents_of_one_gateway_see_only_their_own(gateway_key, store):
    main, writer = acting(gateway_key, f"{PREFIX}main"), acting(gateway_key, f"{PREFIX}writer")
    note_id = main.post("/memories", {"text": TEXT}).json()["id"]
    writer.post("/memories", {"text": "The novel's heroine is a lighthouse keeper in Brittany."})
    assert writer.get("/memories/count").json() == {"count": 1}
    assert writer.get(f"/memories/{note_id}").status_code == 404
    found = writer.post("/memories/search", {"query": "Where does Ana live? Porto piano"}).json()["results"]
    assert all(hit["id"] != note_id for hit in found)
    assert [n["content"] for n in main.get("/memories").json()["results"]] == [TEXT]


def test_sharing_stays_explicit(gateway_key, store):
    main, writer = acting(gateway_key, f"{PREFIX}main"), acting(gateway_key, f"{PREFIX}writer")
    shared = main.post("/memories", {"text": TEXT, "scope": "shared"}).json()["id"]
    assert writer.get(f"/memories/{shared}").status_code == 200


@pytest.mark.parametrize(
    "named",
    ["alice", "openclaw-homework", "openclaw-home", "other-gw-main", "openclaw-home-"],
)
def test_a_gateway_key_cannot_act_outside_its_prefix(named, gateway_key, alice, store):
    before = set(Agent.objects.values_list("pk", flat=True))
    response = acting(gateway_key, named).post("/memories", {"text": TEXT})
    assert response.status_code == 403
    assert PREFIX in response.json()["detail"]
    assert not Note.objects.exists()
    assert set(Agent.objects.values_list("pk", flat=True)) == before


def test_a_gateway_key_cannot_take_over_an_agent_it_did_not_create(gateway, gateway_key, make_agent, store):
    make_agent(f"{PREFIX}eve")  # made by an admin under the gateway's prefix, not by the gateway
    response = acting(gateway_key, f"{PREFIX}eve").get("/memories/count")
    assert response.status_code == 403
    assert "not created by this gateway" in response.json()["detail"]


def test_a_gateway_key_cannot_reach_another_gateways_agents(gateway_key, store):
    other = Gateway.objects.create(prefix="openclaw-work-")
    other_key = GatewayKey.issue(other)[1]
    assert acting(other_key, "openclaw-work-main").post("/memories", {"text": TEXT}).status_code == 201
    response = acting(gateway_key, "openclaw-work-main").get("/memories/count")
    assert response.status_code == 403


def test_a_gateway_key_without_an_agent_is_told_what_to_send(gateway_key, store):
    response = acting(gateway_key, None).post("/memories", {"text": TEXT})
    assert response.status_code == 400
    assert "X-Amem-Agent" in response.json()["detail"]
    assert not Note.objects.exists() and not Agent.objects.exists()


@pytest.mark.parametrize("named", [f"{PREFIX}Main", f"{PREFIX}a b", PREFIX + "x" * 64])
def test_a_malformed_agent_id_is_refused(named, gateway_key, store):
    response = acting(gateway_key, named).get("/memories/count")
    assert response.status_code == 400
    assert not Agent.objects.exists()


def test_revoked_and_inactive_gateways_are_refused(gateway, store):
    key, raw = GatewayKey.issue(gateway)
    assert acting(raw, f"{PREFIX}main").get("/memories/count").status_code == 200
    key.revoke()
    assert acting(raw, f"{PREFIX}main").get("/memories/count").status_code == 401
    raw2 = GatewayKey.issue(gateway)[1]
    Gateway.objects.filter(pk=gateway.pk).update(is_active=False)
    assert acting(raw2, f"{PREFIX}main").get("/memories/count").status_code == 401


def test_a_deactivated_agent_is_refused(gateway_key, store):
    assert acting(gateway_key, f"{PREFIX}main").get("/memories/count").status_code == 200
    Agent.objects.filter(pk=f"{PREFIX}main").update(is_active=False)
    assert acting(gateway_key, f"{PREFIX}main").get("/memories/count").status_code == 403


def test_an_agent_key_cannot_name_another_agent(alice, bob, store):
    raw = ApiKey.issue(alice)[1]
    response = acting(raw, "bob").post("/memories", {"text": TEXT})
    assert response.status_code == 403
    assert "only a gateway key" in response.json()["detail"]
    assert not Note.objects.exists()
    assert acting(raw, "alice").get("/memories/count").status_code == 200  # naming itself is harmless


def test_the_layer_routes_act_for_the_named_agent_too(gateway_key, store):
    main, writer = acting(gateway_key, f"{PREFIX}main"), acting(gateway_key, f"{PREFIX}writer")
    assert main.post("/core/user/replace", {"path": "name", "value": "Ana"}).status_code == 200
    assert writer.get("/core/user").status_code == 404
    assert main.get("/core/user").json()["value"] == {"name": "Ana"}


def test_key_route_says_what_a_key_is(gateway, gateway_key, alice, store):
    assert acting(gateway_key, None).get("/key").json() == {"kind": "gateway", "prefix": PREFIX, "agents": 0}
    acting(gateway_key, f"{PREFIX}main").get("/memories/count")
    assert acting(gateway_key, None).get("/key").json()["agents"] == 1
    assert AgentClient(ApiKey.issue(alice)[1]).get("/key").json() == {"kind": "agent", "agent": "alice"}
    assert AgentClient("amem_wrong").get("/key").status_code == 401


def test_gateway_prefixes_may_not_overlap_or_claim_existing_agents(gateway, make_agent, db):
    with pytest.raises(ValidationError, match="overlaps"):
        Gateway(prefix="openclaw-").full_clean()
    with pytest.raises(ValidationError, match="overlaps"):
        Gateway(prefix=f"{PREFIX}kids-").full_clean()
    make_agent("lab-bot")
    with pytest.raises(ValidationError, match="lab-bot"):
        Gateway(prefix="lab-").full_clean()
    with pytest.raises(ValidationError):
        Gateway(prefix="no_dash").full_clean()


def test_amem_gateway_create_prints_a_working_key(db, store, capsys):
    call_command("amem_gateway", "create", "openclaw-lab-")
    out = capsys.readouterr().out
    raw = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("api key: "))
    assert raw.startswith("amem_gw_")
    assert acting(raw, "openclaw-lab-main").get("/memories/count").status_code == 200
    call_command("amem_gateway", "list")
    assert "openclaw-lab-main" in capsys.readouterr().out
