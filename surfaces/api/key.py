"""GET /api/v1/key: what the caller's key is, so a client can set itself up without asking a person.

An agent key answers with its agent; a gateway key (surfaces/gateways.py) with its prefix, so an
agent runtime holding one key can derive each of its agents' ids (``<prefix><its agent id>``).
"""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Router, Schema

from surfaces.api.auth import AgentKey
from surfaces.api.throttles import KeyRateThrottle


class KeyOut(Schema):
    kind: Literal["agent", "gateway"]
    agent: str | None = None
    prefix: str | None = None
    agents: int | None = None


router = Router(auth=AgentKey(describe=True), throttle=[KeyRateThrottle()], tags=["keys"])


@router.get("/key", response=KeyOut, exclude_none=True)
def whoami(request: HttpRequest):
    """The key's kind: an agent key and its agent, or a gateway key, its id prefix and how many agents it made."""
    return request.auth  # type: ignore[attr-defined]
