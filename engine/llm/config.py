"""LLM configuration: a pure function from raw env values and configured values.

settings.py is the only reader of os.environ; it hands us the raw AMEM_LLM_* (and
provider SDK) variables as a plain mapping, plus the AMEM_LLM dict from settings.
Precedence for every field: env (empty string = unset) > configured > default.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

PROVIDERS: tuple[str, ...] = ("anthropic", "openai", "none")
DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-4o-mini",
    "none": "offline-rules",
}
# Explicit public endpoints so the SDKs never fall back to reading os.environ.
DEFAULT_BASE_URLS: dict[str, str] = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "none": "",
}
PROVIDER_KEY_VARS: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
}
PROVIDER_BASE_URL_VARS: dict[str, str] = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
}
# Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) accept any key, but the
# SDKs refuse to start without one.
PLACEHOLDER_KEY = "sk-no-key-required"
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_RETRIES = 1

FAST_ROLES: frozenset[str] = frozenset({"construct", "link", "evolve", "episode"})
STRONG_ROLES: frozenset[str] = frozenset({"should_merge", "evolution_judge", "conflict_scan", "reflect"})
ROLES: tuple[str, ...] = (
    "construct",
    "link",
    "evolve",
    "crud",
    "should_merge",
    "evolution_judge",
    "conflict_scan",
    "episode",
    "reflect",
)
LOCALES: tuple[str, ...] = ("en", "zh")


@dataclass(frozen=True)
class TierConfig:
    """Where one tier's calls go. The key is kept out of repr so it never reaches logs."""

    name: str
    provider: str
    model: str
    base_url: str
    api_key: str = ""
    timeout: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES

    def __repr__(self) -> str:
        return (
            f"TierConfig(name={self.name!r}, provider={self.provider!r}, model={self.model!r}, "
            f"base_url={self.base_url!r}, timeout={self.timeout!r})"
        )


@dataclass(frozen=True)
class LlmConfig:
    fast: TierConfig
    strong: TierConfig
    crud_role: str = "fast"
    prompt_locale: str = "en"

    def tier_name_for(self, role: str) -> str:
        if role == "crud":
            return self.crud_role
        if role in STRONG_ROLES:
            return "strong"
        if role in FAST_ROLES:
            return "fast"
        raise ValueError(f"unknown LLM role {role!r}")

    def tier_for(self, role: str) -> TierConfig:
        return self.strong if self.tier_name_for(role) == "strong" else self.fast

    @property
    def offline(self) -> bool:
        """True when every role is answered by the offline rules."""
        return self.fast.provider == "none" and self.strong.provider == "none"


def resolve_llm_config(env: Mapping[str, str], configured: Mapping[str, Any]) -> LlmConfig:
    """Build the LLM configuration; raises ValueError for a malformed timeout, retries or base URL."""
    _check_base_urls(env)
    strong_block = configured.get("strong") or {}
    if not isinstance(strong_block, Mapping):
        strong_block = {}

    def pick(env_name: str, configured_key: str) -> str:
        return _clean(env.get(env_name)) or _clean(configured.get(configured_key))

    timeout = _timeout(env, configured)
    max_retries = _max_retries(env, configured)

    # Fast tier.
    fast_provider_raw = pick("AMEM_LLM_PROVIDER", "provider")
    fast_provider = (
        _normalise_provider("AMEM_LLM_PROVIDER", fast_provider_raw) if fast_provider_raw else _default_provider(env)
    )
    fast_model = pick("AMEM_LLM_MODEL", "model") or DEFAULT_MODELS[fast_provider]
    fast_base = pick("AMEM_LLM_BASE_URL", "base_url") or _provider_base_url(env, fast_provider)
    fast_key = _clean(env.get("AMEM_LLM_API_KEY")) or _provider_key(env, fast_provider)
    fast = TierConfig(
        name="fast",
        provider=fast_provider,
        model=fast_model,
        base_url=fast_base,
        api_key=fast_key if fast_provider != "none" else "",
        timeout=timeout,
        max_retries=max_retries,
    )

    # Strong tier: every field falls back to the fast one, but a strong tier on another
    # provider must not inherit the fast provider's model, endpoint or key.
    strong_provider_raw = (
        _clean(env.get("AMEM_LLM_STRONG_PROVIDER"))
        or _clean(strong_block.get("provider"))
        or _clean(configured.get("strong_provider"))
    )
    strong_provider = (
        _normalise_provider("AMEM_LLM_STRONG_PROVIDER", strong_provider_raw) if strong_provider_raw else fast_provider
    )
    same = strong_provider == fast_provider
    strong_model = (
        _clean(env.get("AMEM_LLM_STRONG_MODEL"))
        or _clean(strong_block.get("model"))
        or _clean(configured.get("strong_model"))
    )
    strong_model = strong_model or (fast_model if same else DEFAULT_MODELS[strong_provider])
    strong_base = (
        _clean(env.get("AMEM_LLM_STRONG_BASE_URL"))
        or _clean(strong_block.get("base_url"))
        or _clean(configured.get("strong_base_url"))
    )
    strong_base = strong_base or (fast_base if same else _provider_base_url(env, strong_provider))
    strong_key = _clean(env.get("AMEM_LLM_STRONG_API_KEY")) or (
        fast_key if same else _provider_key(env, strong_provider)
    )
    strong = TierConfig(
        name="strong",
        provider=strong_provider,
        model=strong_model,
        base_url=strong_base,
        api_key=strong_key if strong_provider != "none" else "",
        timeout=timeout,
        max_retries=max_retries,
    )

    crud_role = (pick("AMEM_LLM_CRUD_ROLE", "crud_role") or "fast").lower()
    if crud_role not in ("fast", "strong"):
        raise ValueError(f"AMEM_LLM_CRUD_ROLE={crud_role!r} is not fast or strong")
    locale = (pick("AMEM_PROMPT_LOCALE", "prompt_locale") or "en").lower()
    if locale not in LOCALES:
        raise ValueError(f"AMEM_PROMPT_LOCALE={locale!r} is not one of {', '.join(LOCALES)}")
    return LlmConfig(fast=fast, strong=strong, crud_role=crud_role, prompt_locale=locale)


BASE_URL_VARS = ("AMEM_LLM_BASE_URL", "AMEM_LLM_STRONG_BASE_URL", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")


def _check_base_urls(env: Mapping[str, str]) -> None:
    """An endpoint that is not an http(s) URL stops start-up, naming it (the SDK would fail every call)."""
    for name in BASE_URL_VARS:
        raw = _clean(env.get(name))
        if not raw:
            continue
        try:
            parts = urlsplit(raw)
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError:
            parts = urlsplit("")
        if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in raw):
            raise ValueError(f"{name}={raw!r} is not an http(s) URL (e.g. https://api.openai.com/v1)")


def _clean(value: Any) -> str:
    """Empty and whitespace-only values count as unset."""
    if value is None:
        return ""
    return str(value).strip()


def _normalise_provider(name: str, raw: str) -> str:
    """A provider amem knows, or start-up stops naming the variable (a guess would send every call astray)."""
    provider = raw.strip().lower()
    if provider not in PROVIDERS:
        raise ValueError(f"{name}={raw!r} is not a provider amem knows: one of {', '.join(PROVIDERS)}")
    return provider


def _default_provider(env: Mapping[str, str]) -> str:
    # No provider named anywhere: pick what the available key implies, and stay offline
    # rather than send requests that can only fail with 401.
    if _clean(env.get("AMEM_LLM_API_KEY")) or _clean(env.get("ANTHROPIC_API_KEY")):
        return "anthropic"
    if _clean(env.get("OPENAI_API_KEY")):
        return "openai"
    return "none"


def _provider_key(env: Mapping[str, str], provider: str) -> str:
    if provider == "none":
        return ""
    var = PROVIDER_KEY_VARS.get(provider, "")
    return _clean(env.get(var)) or PLACEHOLDER_KEY


def _provider_base_url(env: Mapping[str, str], provider: str) -> str:
    var = PROVIDER_BASE_URL_VARS.get(provider, "")
    return (_clean(env.get(var)) if var else "") or DEFAULT_BASE_URLS[provider]


_TIMEOUT_RE = re.compile(r"^(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>ms|s)?$", re.IGNORECASE)


def parse_timeout(raw: Any, name: str) -> float:
    """Seconds; a plain number is seconds, "ms"/"s" suffixes are accepted."""
    text = _clean(raw)
    match = _TIMEOUT_RE.match(text)
    if not match:
        raise ValueError(
            f"{name}={raw!r} is not a timeout: use seconds (e.g. 30) or milliseconds with an ms suffix (e.g. 30000ms)"
        )
    value = float(match.group("num"))
    if (match.group("unit") or "s").lower() == "ms":
        value /= 1000.0
    if value <= 0:
        raise ValueError(f"{name}={raw!r} must be greater than zero")
    if match.group("unit") is None and value >= 1000:
        # The seed engine took milliseconds; 30000 seconds is almost certainly a port.
        log.warning(
            "%s=%s is read as seconds (%.0f min); add 'ms' for milliseconds",
            name,
            text,
            value / 60,
        )
    return value


def _timeout(env: Mapping[str, str], configured: Mapping[str, Any]) -> float:
    if _clean(env.get("AMEM_LLM_TIMEOUT")):
        return parse_timeout(env["AMEM_LLM_TIMEOUT"], "AMEM_LLM_TIMEOUT")
    if _clean(configured.get("timeout")):
        return parse_timeout(configured["timeout"], "AMEM_LLM['timeout']")
    return DEFAULT_TIMEOUT_S


def _max_retries(env: Mapping[str, str], configured: Mapping[str, Any]) -> int:
    for name, raw in (
        ("AMEM_LLM_MAX_RETRIES", env.get("AMEM_LLM_MAX_RETRIES")),
        ("AMEM_LLM['max_retries']", configured.get("max_retries")),
    ):
        text = _clean(raw)
        if text:
            if not text.isdigit():
                raise ValueError(f"{name}={raw!r} must be a whole number >= 0")
            return int(text)
    return DEFAULT_MAX_RETRIES
