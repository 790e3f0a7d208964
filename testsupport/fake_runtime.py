"""Point the process's runtime LLM at a fake provider server."""

from __future__ import annotations

from engine import runtime
from testsupport.llm_server import FakeLLMServer


def point_llm_at(settings, server: FakeLLMServer, **env: str) -> None:
    """Make the runtime LLM call ``server`` (OpenAI wire format), with extra AMEM_LLM_* values."""
    settings.AMEM_LLM_ENV = {
        "AMEM_LLM_PROVIDER": "openai",
        "AMEM_LLM_BASE_URL": server.openai_base_url,
        "AMEM_LLM_API_KEY": "test",
        "AMEM_LLM_MODEL": "fake-fast",
        "AMEM_LLM_MAX_RETRIES": "0",
        "AMEM_LLM_TIMEOUT": "5",
        **env,
    }
    runtime.reset_llm()
