"""The LLM layer's recorder: one LlmCall row per model call, for the dashboard and the admin."""

from __future__ import annotations

import logging
from dataclasses import asdict

from engine.llm.types import LlmCallRecord
from memories.models import LlmCall

log = logging.getLogger("memories.llm_calls")


def record_llm_call(record: LlmCallRecord) -> None:
    """Keep the accounting row; accounting never breaks a write."""
    try:
        row = asdict(record)
        row["agent_id"] = row.get("agent_id") or ""
        row["error"] = row.get("error") or ""
        LlmCall.objects.create(**row)
    except Exception:
        log.warning("could not record an LLM call", exc_info=True)
