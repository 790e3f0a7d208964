"""mem0's ``Authorization: Token <key>`` as ninja auth, and which agent a call acts for.

The keys are amem's own, exactly as the native API takes them (surfaces/api/auth.py): an agent
key acts for its agent; a gateway key for one of its agents, which a mem0 call names in
``agent_id`` (or the ``X-Amem-Agent`` header), by full id. Auth only finds who holds the key;
the route names the agent once it has read the body, through ``acting_agent``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest
from ninja.security import APIKeyHeader

from engine.errors import InvalidInput, PermissionDenied
from memories.models import Agent, ApiKey, GatewayKey
from memories.models.gateways import Gateway
from surfaces import gateways
from surfaces.api.throttles import BadKeyThrottle, presented_key


@dataclass(frozen=True)
class Caller:
    """Who holds the key: an agent, or a gateway that acts for the agents under its prefix."""

    agent: Agent | None = None
    gateway: Gateway | None = None

    def describe(self) -> dict:
        if self.agent is not None:
            return {"kind": "agent", "agent": self.agent.pk}
        assert self.gateway is not None
        return {"kind": "gateway", "prefix": self.gateway.pk}

    def agents(self) -> list[Agent]:
        """Every agent this key may act for: its own, or the gateway's active ones."""
        if self.agent is not None:
            return [self.agent]
        assert self.gateway is not None
        return list(Agent.objects.filter(gateway_link__gateway=self.gateway, is_active=True).order_by("pk"))


class TokenKey(APIKeyHeader):
    """``Authorization: Token <key>`` (mem0's scheme) or ``Bearer <key>``; unknown or revoked → 401."""

    param_name = "Authorization"

    def __call__(self, request: HttpRequest):
        failures = BadKeyThrottle()
        failures.refuse_if_over(request)
        caller = self.authenticate(request, presented_key(request))
        if caller is None:
            failures.record_failure(request)
        return caller

    def authenticate(self, request: HttpRequest, key: str | None) -> Caller | None:
        if not key:
            return None
        agent_key = ApiKey.authenticate(key)
        if agent_key is not None:
            return Caller(agent=agent_key.agent)
        gateway_key = GatewayKey.authenticate(key)
        return Caller(gateway=gateway_key.gateway) if gateway_key is not None else None


def acting_agent(request: HttpRequest, agent_id: str | None) -> Agent:
    """The agent a call acts for: the agent key's own, or the one a gateway key names."""
    caller: Caller = request.auth  # type: ignore[attr-defined]
    named = agent_id or request.headers.get(gateways.ACTING_HEADER) or ""
    if caller.agent is not None:
        if agent_id and agent_id != caller.agent.pk:
            raise PermissionDenied(
                f"agent_id {agent_id!r}: this key belongs to agent {caller.agent.pk!r}; "
                "only a gateway key may name another agent"
            )
        gateways.refuse_header_on_agent_key(caller.agent, request.headers.get(gateways.ACTING_HEADER))
        return caller.agent
    assert caller.gateway is not None
    if not named.strip():
        raise InvalidInput(
            f"agent_id: a gateway key acts for one of its agents; name it in agent_id "
            f"(an agent id starting with {caller.gateway.prefix!r})"
        )
    return gateways.acting_agent(caller.gateway, named)
