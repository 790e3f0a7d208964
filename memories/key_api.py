"""GET /api/v1/key: what the caller's key is, so a client can set itself up without asking a person.

An agent key answers with its agent; a gateway key (memories/gateways.py) with its prefix, so an
agent runtime holding one key can derive each of its agents' ids (``<prefix><its agent id>``).
"""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Router, Schema

from memories.agent_api import AgentKey
from memories.models import ApiKey, GatewayKey
from memories.throttles import KeyRateThrottle


class KeyOut(Schema):
    kind: Literal["agent", "gateway"]
    agent: str | None = None
    prefix: str | None = None
    agents: int | None = None


class AnyKey(AgentKey):
    """Like AgentKey, but a gateway key needs no acting agent here: it asks about itself."""

    def authenticate(self, request: HttpRequest, token: str) -> dict | None:  # type: ignore[override]
        if not token:
            return None
        key = ApiKey.authenticate(token)
        if key is not None:
            return {"kind": "agent", "agent": key.agent_id}
        gateway_key = GatewayKey.authenticate(token)
        if gateway_key is None:
            return None
        gateway = gateway_key.gateway
        return {"kind": "gateway", "prefix": gateway.prefix, "agents": gateway.agents.count()}


router = Router(auth=AnyKey(), throttle=[KeyRateThrottle()], tags=["keys"])


@router.get("/key", response=KeyOut, exclude_none=True)
def whoami(request: HttpRequest):
    """The key's kind: an agent key and its agent, or a gateway key, its id prefix and how many agents it made."""
    return request.auth  # type: ignore[attr-defined]
