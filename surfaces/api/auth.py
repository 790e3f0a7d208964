"""The agent's API key as ninja auth: every /api/v1 router but the local bridge uses it.

An agent key acts for its agent; a gateway key (surfaces/gateways.py) for the agent its
request names in ``X-Amem-Agent``, within the id prefix it owns.
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja.security import HttpBearer

from memories.models import Agent, ApiKey, GatewayKey
from surfaces import gateways
from surfaces.api.throttles import BadKeyThrottle


class AgentKey(HttpBearer):
    """``Authorization: Bearer <key>`` → the key's agent; unknown, revoked or inactive → 401.

    ``describe=True`` (GET /key only) answers what the key is instead, so a gateway key needs no
    acting agent there.
    """

    def __init__(self, *, describe: bool = False) -> None:
        super().__init__()
        self.describe = describe

    def __call__(self, request: HttpRequest):
        # Also for a missing header (ninja would not call authenticate): every failure counts.
        failures = BadKeyThrottle()
        failures.refuse_if_over(request)
        agent = super().__call__(request)
        if agent is None:
            failures.record_failure(request)
        return agent

    def authenticate(self, request: HttpRequest, token: str) -> Agent | dict | None:
        if not token:
            return None
        named = request.headers.get(gateways.ACTING_HEADER)
        key = ApiKey.authenticate(token)
        if key is not None:
            if self.describe:
                return {"kind": "agent", "agent": key.agent_id}
            gateways.refuse_header_on_agent_key(key.agent, named)
            return key.agent
        # A gateway key acts for the agent its request names, under the gateway's prefix.
        gateway_key = GatewayKey.authenticate(token)
        if gateway_key is None:
            return None
        gateway = gateway_key.gateway
        if self.describe:
            return {"kind": "gateway", "prefix": gateway.pk, "agents": gateway.agents.count()}
        return gateways.acting_agent(gateway, named or "")
