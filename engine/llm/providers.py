"""The two wire formats (Anthropic Messages, OpenAI Chat Completions) via official SDKs, each with the reply schema."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any

from engine.llm.config import TierConfig
from engine.llm.schemas import ReplySchema

_REASONING_MODEL_RE = re.compile(r"^(o\d|gpt-5)", re.IGNORECASE)


@dataclass(frozen=True)
class Completion:
    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    truncated: bool = False  # the reply stopped at the token budget (finish_reason length / max_tokens)


def token_budget(model: str, budget: int) -> int:
    """Thinking-heavy models spend most of a small budget before answering."""
    name = model.lower()
    if "gemini" in name or "pro-agent" in name:
        return max(8 * budget, 4000)
    return budget


def is_reasoning_model(model: str) -> bool:
    return bool(_REASONING_MODEL_RE.match(model.strip()))


def openai_token_params(model: str, budget: int) -> dict[str, int]:
    """OpenAI reasoning models reject max_tokens and want max_completion_tokens."""
    limit = token_budget(model, budget)
    if is_reasoning_model(model):
        return {"max_completion_tokens": limit}
    return {"max_tokens": limit}


ClientKey = tuple[str, str, str, float, int]


class ClientPool:
    """One SDK client per (provider, base_url, key, timeout, retries), reused across calls.

    A changed configuration yields a different key and therefore a fresh client; stale
    entries are harmless (a handful at most) and `clear()` drops them on reconfigure.
    """

    def __init__(self) -> None:
        self._clients: dict[ClientKey, Any] = {}
        self._lock = threading.Lock()
        # Endpoints (provider, base URL, model) that answered 400 to a reply schema
        # (`response_format` or a forced tool): asked without one from then on.
        self.no_schema: set[tuple[str, str, str]] = set()

    def __len__(self) -> int:
        return len(self._clients)

    def clear(self) -> None:
        with self._lock:
            self._clients.clear()
            self.no_schema.clear()

    def get(self, tier: TierConfig) -> Any:
        key: ClientKey = (
            tier.provider,
            tier.base_url,
            tier.api_key,
            tier.timeout,
            tier.max_retries,
        )
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                client = _build_client(tier)
                self._clients[key] = client
            return client


def _build_client(tier: TierConfig) -> Any:
    # Imported lazily: offline deployments and most tests never pay for the SDK import.
    if tier.provider == "openai":
        import openai

        return openai.OpenAI(
            api_key=tier.api_key,
            base_url=tier.base_url,
            timeout=tier.timeout,
            max_retries=tier.max_retries,
        )
    import anthropic

    return anthropic.Anthropic(
        api_key=tier.api_key,
        base_url=tier.base_url,
        timeout=tier.timeout,
        max_retries=tier.max_retries,
    )


def complete(
    client: Any,
    tier: TierConfig,
    prompt: str,
    budget: int,
    *,
    schema: ReplySchema | None = None,
    pool: ClientPool | None = None,
) -> Completion:
    """Send one single-user-message request; SDK exceptions propagate to the caller.

    ``schema`` goes to OpenAI-compatible servers as ``response_format`` and to Anthropic as
    a forced tool. A server that rejects it with a 400 is asked again without it, and
    ``pool`` remembers that endpoint.
    """
    send = _openai if tier.provider == "openai" else _anthropic
    endpoint = (tier.provider, tier.base_url, tier.model)
    if schema is None or (pool is not None and endpoint in pool.no_schema):
        return send(client, tier.model, prompt, budget)
    try:
        return send(client, tier.model, prompt, budget, schema)
    except _bad_request(tier.provider):
        plain = send(client, tier.model, prompt, budget)  # a second 400 was not about the schema
        if pool is not None:
            pool.no_schema.add(endpoint)
        return plain


def _bad_request(provider: str) -> type[Exception]:
    if provider == "openai":
        import openai

        return openai.BadRequestError
    import anthropic

    return anthropic.BadRequestError


def _anthropic(client: Any, model: str, prompt: str, budget: int, schema: ReplySchema | None = None) -> Completion:
    extra: dict[str, Any] = {}
    if schema is not None:
        extra = {"tools": [schema.tool()], "tool_choice": {"type": "tool", "name": schema.name}}
    message = client.messages.create(
        model=model,
        max_tokens=token_budget(model, budget),
        messages=[{"role": "user", "content": prompt}],
        **extra,
    )
    usage = getattr(message, "usage", None)
    return Completion(
        text=_anthropic_answer(message.content or []).strip(),
        tokens_in=int(getattr(usage, "input_tokens", 0) or 0),
        tokens_out=int(getattr(usage, "output_tokens", 0) or 0),
        truncated=getattr(message, "stop_reason", None) == "max_tokens",
    )


def _anthropic_answer(blocks: list[Any]) -> str:
    """The forced tool's input as JSON text (the parser's input either way), else the first text."""
    for block in blocks:
        if getattr(block, "type", "") == "tool_use":
            return json.dumps(block.input, ensure_ascii=False)
    for block in blocks:
        if getattr(block, "type", "") == "text":
            return str(block.text or "")
    return ""


def _openai(client: Any, model: str, prompt: str, budget: int, schema: ReplySchema | None = None) -> Completion:
    extra: dict[str, Any] = {"response_format": schema.response_format()} if schema is not None else {}
    response = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": prompt}],
        **openai_token_params(model, budget),
        **extra,
    )
    text, finish = "", None
    if response.choices:
        text = response.choices[0].message.content or ""
        finish = response.choices[0].finish_reason
    usage = getattr(response, "usage", None)
    return Completion(
        text=text.strip(),
        tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
        tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
        truncated=finish == "length",
    )
