"""Which agent a gateway key acts for: the one place that decides (memories/models/gateways.py).

A gateway key names its agent in the ``X-Amem-Agent`` header, by full id. The id must start with
the gateway's prefix; an agent that does not exist yet is created and recorded as the gateway's;
an existing agent must have been created by this gateway. Anything else is refused: a gateway
never falls back to another agent, and an agent key can never name one.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from engine.errors import InvalidInput, PermissionDenied
from memories.ids import InvalidId, check_agent_id
from memories.models import Agent
from memories.models.gateways import Gateway, GatewayAgent

ACTING_HEADER = "X-Amem-Agent"


def acting_agent(gateway: Gateway, agent_id: str) -> Agent:
    """The agent ``gateway`` acts for when it names ``agent_id``; created on first use."""
    agent_id = (agent_id or "").strip()
    if not agent_id:
        raise InvalidInput(
            f"a gateway key acts for one of its agents: name it in the {ACTING_HEADER} header "
            f"(an agent id starting with {gateway.prefix!r})"
        )
    if not agent_id.startswith(gateway.prefix) or agent_id == gateway.prefix:
        raise PermissionDenied(
            f"this gateway key may act only for agents whose id starts with {gateway.prefix!r}, not {agent_id!r}"
        )
    try:
        check_agent_id(agent_id)
    except InvalidId as exc:
        raise InvalidInput(f"{ACTING_HEADER}: {exc}") from None
    agent = Agent.objects.filter(pk=agent_id).select_related("gateway_link").first()
    if agent is None:
        agent = _create(gateway, agent_id)
    link = getattr(agent, "gateway_link", None)
    if link is None or link.gateway_id != gateway.pk:
        raise PermissionDenied(f"agent {agent_id!r} exists and was not created by this gateway")
    if not agent.is_active:
        raise PermissionDenied(f"agent {agent_id!r} is deactivated")
    return agent


def _create(gateway: Gateway, agent_id: str) -> Agent:
    try:
        with transaction.atomic():
            agent = Agent.objects.create(id=agent_id, name=f"via gateway {gateway.prefix}")
            GatewayAgent.objects.create(agent=agent, gateway=gateway)
    except IntegrityError:
        # Another request created it first (both rows commit together): read what it made.
        agent = Agent.objects.select_related("gateway_link").get(pk=agent_id)
    return Agent.objects.select_related("gateway_link").get(pk=agent.pk)


def refuse_header_on_agent_key(agent: Agent, named: str | None) -> None:
    """An agent key speaks for its own agent only; naming another is a mistake, said out loud."""
    if named and named.strip() and named.strip() != agent.pk:
        raise PermissionDenied(
            f"this key belongs to agent {agent.pk!r}; only a gateway key may name another agent in {ACTING_HEADER}"
        )
