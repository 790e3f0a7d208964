"""The memory-layer tests use the agent API's fixtures (keys, JSON clients, offline LLM)."""

from tests.surfaces.api.conftest import AgentClient, _offline, as_alice, as_bob, key_for, snapshot  # noqa: F401
