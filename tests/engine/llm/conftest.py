"""Fixtures for the LLM layer: a fake provider, an LLM builder, a tiny offline embedder."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from engine.llm import client as llm_module
from engine.llm.client import LLM, LlmCallRecord, resolve_llm_config
from engine.llm.offline import OfflineRules
from engine.llm.providers import ClientPool
from testsupport.llm_server import FakeLLMServer

_WORD_RE = re.compile(r"[a-z0-9_]+|[\u4e00-\u9fff]+")


def simple_tokenize(text: str) -> list[str]:
    """Latin words plus CJK runs cut into bigrams; enough for deterministic tests."""
    tokens: list[str] = []
    for match in _WORD_RE.findall(text.lower()):
        if "\u4e00" <= match[0] <= "\u9fff" and len(match) > 2:
            tokens.extend(match[i : i + 2] for i in range(len(match) - 1))
        else:
            tokens.append(match)
    return tokens


def hash_embed(texts: Sequence[str], dim: int = 256) -> np.ndarray:
    """Hashed bag of words, L2-normalised: same words → same vector, no model needed."""
    rows = np.zeros((len(texts), dim), dtype=np.float32)
    for i, text in enumerate(texts):
        for token in simple_tokenize(text):
            digest = hashlib.md5(token.encode()).digest()
            rows[i, int.from_bytes(digest[:4], "little") % dim] += 1.0
        norm = np.linalg.norm(rows[i])
        if norm:
            rows[i] /= norm
    return rows


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def records() -> list[LlmCallRecord]:
    return []


@pytest.fixture
def pool() -> ClientPool:
    return ClientPool()


@pytest.fixture
def offline_rules() -> OfflineRules:
    return OfflineRules(hash_embed, simple_tokenize)


@pytest.fixture(autouse=True)
def _fresh_offline_log(monkeypatch: pytest.MonkeyPatch) -> None:
    # "log once" state is per process; each test should see its own first time.
    monkeypatch.setattr(llm_module, "_offline_logged", set())


MakeLLM = Callable[..., LLM]


@pytest.fixture
def make_llm(fake_llm: FakeLLMServer, records: list[LlmCallRecord], pool: ClientPool) -> MakeLLM:
    """Build an LLM from raw env + configured values; the base URL defaults to the fake."""

    def build(
        env: Mapping[str, str] | None = None,
        configured: Mapping[str, Any] | None = None,
        *,
        offline: OfflineRules | None = None,
    ) -> LLM:
        env = dict(env or {})
        configured = {"max_retries": 0, **(configured or {})}
        env.setdefault("ANTHROPIC_BASE_URL", fake_llm.anthropic_base_url)
        env.setdefault("OPENAI_BASE_URL", fake_llm.openai_base_url)
        return LLM(
            resolve_llm_config(env, configured),
            recorder=records.append,
            offline=offline,
            clients=pool,
        )

    return build
