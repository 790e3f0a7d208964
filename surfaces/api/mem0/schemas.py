"""Request bodies of mem0's calls, as mem0ai's MemoryClient sends them (surfaces/api/mem0/routes.py).

Unknown fields are refused (400 naming them), like the native API. Options mem0 has and amem
cannot honour are declared, so the route can refuse each by name with the reason
(``UNSUPPORTED``); options that hold in amem by construction are accepted and change nothing
(``async_mode``: amem answers after the write; ``latest_only``: a memory is changed in place,
there are no older versions; ``rerank`` / ``keyword_search``: every search fuses vectors and BM25).
"""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import ConfigDict, Field, StrictBool, StrictStr

from surfaces.api.schemas import StrictText as StorableStr

# The reason each mem0 option cannot map, in the 400 that names it.
UNSUPPORTED = {
    "app_id": "amem has no apps: the key decides the agent",
    "custom_categories": "amem files each memory under one of its own seven categories",
    "custom_instructions": "amem's write pipeline has no per-call instructions",
    "agent_custom_instructions": "amem's write pipeline has no per-call instructions",
    "structured_data_schema": "amem stores text, not structured records",
    "expiration_date": "amem keeps memories until they are retired (the quality scan flags expired reminders)",
    "immutable": "every amem memory can be edited and keeps its history",
    "includes": "amem's write pipeline has no include or exclude lists",
    "excludes": "amem's write pipeline has no include or exclude lists",
    "enable_graph": "amem links notes and records facts on every write; there is no switch",
    "reference_date": "amem reads the dates a query names against today",
    "timestamp_update": "a memory's time is when it happened; amem does not rewrite it",
}


class Mem0Schema(Schema):
    model_config = ConfigDict(extra="forbid")


class MessageIn(Mem0Schema):
    role: StorableStr = Field(max_length=40)
    content: StorableStr
    name: StrictStr | None = None


class Entities(Mem0Schema):
    """The entity ids mem0 accepts at the top of a body (or inside ``filters``)."""

    user_id: StorableStr | None = Field(default=None, max_length=200)
    agent_id: StorableStr | None = Field(default=None, max_length=64)
    run_id: StorableStr | None = Field(default=None, max_length=200)
    app_id: Any = None


class AddIn(Entities):
    messages: list[MessageIn] = Field(min_length=1, max_length=100)
    filters: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    infer: StrictBool = True
    timestamp: int | float | None = None
    async_mode: StrictBool | None = None
    output_format: Literal["v1.1"] | None = None
    version: StrictStr | None = None
    org_id: StrictStr | None = None
    project_id: StrictStr | None = None
    custom_categories: Any = None
    custom_instructions: Any = None
    agent_custom_instructions: Any = None
    structured_data_schema: Any = None
    expiration_date: Any = None
    immutable: Any = None
    includes: Any = None
    excludes: Any = None
    enable_graph: Any = None


class SearchIn(Mem0Schema):
    query: StorableStr = Field(min_length=1, max_length=20_000)
    filters: dict[str, Any] | None = None
    top_k: int = Field(default=10, ge=1, le=1000)
    threshold: float | None = Field(default=None, ge=0)
    categories: list[StrictStr] | None = None
    metadata: dict[str, Any] | None = None
    fields: list[StrictStr] | None = None
    rerank: StrictBool | None = None
    keyword_search: StrictBool | None = None
    latest_only: StrictBool | None = None
    show_expired: StrictBool | None = None
    reference_date: Any = None
    version: StrictStr | None = None  # "v2" in much mem0 code: amem has one search, so any version means it
    org_id: StrictStr | None = None
    project_id: StrictStr | None = None


class GetAllIn(Mem0Schema):
    filters: dict[str, Any] | None = None
    categories: list[StrictStr] | None = None
    start_date: StrictStr | None = None
    end_date: StrictStr | None = None
    latest_only: StrictBool | None = None
    show_expired: StrictBool | None = None
    fields: list[StrictStr] | None = None
    version: StrictStr | None = None
    org_id: StrictStr | None = None
    project_id: StrictStr | None = None


class UpdateIn(Mem0Schema):
    text: StorableStr | None = None
    metadata: dict[str, Any] | None = None
    timestamp: Any = None
    expiration_date: Any = None


class BatchUpdateItem(Mem0Schema):
    memory_id: StrictStr
    text: StorableStr | None = None
    metadata: dict[str, Any] | None = None


class BatchUpdateIn(Mem0Schema):
    memories: list[BatchUpdateItem] = Field(min_length=1, max_length=1000)


class BatchDeleteItem(Mem0Schema):
    memory_id: StrictStr


class BatchDeleteIn(Mem0Schema):
    memories: list[BatchDeleteItem] = Field(min_length=1, max_length=1000)
