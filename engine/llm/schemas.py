"""JSON schemas of the replies, sent with every request in the provider's own way.

OpenAI-compatible servers get it as `response_format` (json_schema, strict); a server that
supports structured output (OpenAI, llama.cpp, vLLM, Ollama, the dev tool in tools/local_llm)
then constrains generation to the schema, so a small model cannot answer in prose or invent
a field. Anthropic gets it as the `input_schema` of one tool the model is made to call
(`tool_choice`), which is how the Messages API constrains a reply to a shape. The parser (engine/llm/parse.py) stays the judge either way:
a server may ignore the schema, and a reply cut off at the token budget is still cut off.

Only the keywords that both OpenAI's strict mode and llama.cpp's grammar builder accept
are used: type, properties, required (every property), additionalProperties false, items,
enum, maxItems. The top level is always an object, so list-shaped roles are wrapped
(`{"ops": [...]}`, `{"pairs": [...]}`); their validators accept both shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.llm.types import CATEGORIES, CONFIDENCES, NOTE_TYPES, VERDICTS

Schema = dict[str, Any]

_STRING: Schema = {"type": "string"}


def _list(items: Schema, most: int | None = None) -> Schema:
    schema: Schema = {"type": "array", "items": items}
    if most is not None:
        schema["maxItems"] = most
    return schema


def _object(**properties: Schema) -> Schema:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _ids(ids: Sequence[str]) -> Schema:
    # Only ids that were offered: the grammar cannot spell an invented one.
    return {"type": "string", "enum": list(dict.fromkeys(ids))} if ids else _STRING


def construct() -> Schema:
    return _object(
        keywords=_list(_STRING, 7),
        tags=_list(_STRING, 4),
        context=_STRING,
        category={"type": "string", "enum": list(CATEGORIES)},
        note_type={"type": "string", "enum": list(NOTE_TYPES)},
        topics=_list(_STRING, 5),
        confidence={"type": "string", "enum": list(CONFIDENCES)},
        importance={"type": "integer"},
        facts=_list(_list(_STRING, 3), 3),
    )


def link(ids: Sequence[str]) -> Schema:
    return _object(links=_list(_ids(ids), len(ids) or None))


def evolve(ids: Sequence[str]) -> Schema:
    update = _object(id=_ids(ids), context=_STRING, tags=_list(_STRING, 6))
    return _object(updates=_list(update, len(ids) or None), suggested_connections=_list(_ids(ids), len(ids) or None))


def crud() -> Schema:
    op = _object(
        action={"type": "string", "enum": ["NEW", "UPDATE", "DELETE", "NONE"]},
        existing_idx={"type": ["integer", "null"]},
        fact=_STRING,
    )
    return _object(ops=_list(op, 3))


def should_merge() -> Schema:
    return _object(should_merge={"type": "boolean"}, merged=_STRING)


def evolution_judge() -> Schema:
    return _object(verdict={"type": "string", "enum": list(VERDICTS)}, mergedContent=_STRING, reason=_STRING)


def conflict_scan() -> Schema:
    pair = _object(
        a={"type": "integer"}, b={"type": "integer"}, superseded={"type": ["integer", "null"]}, reason=_STRING
    )
    return _object(pairs=_list(pair, 20))


def episode() -> Schema:
    return _object(
        summary=_STRING,
        decisions=_list(_STRING, 6),
        open_items=_list(_STRING, 6),
        topics=_list(_STRING, 6),
        mood={"type": "string", "enum": ["positive", "neutral", "negative", "mixed"]},
    )


def reflect() -> Schema:
    return _object(reflection=_STRING, cites=_list({"type": "integer"}, 10))


@dataclass(frozen=True)
class ReplySchema:
    """A role's reply schema under the name both providers know it by."""

    role: str
    schema: Schema

    @property
    def name(self) -> str:
        return f"amem_{self.role}"

    def response_format(self) -> dict[str, Any]:
        """OpenAI Chat Completions: structured output in strict mode."""
        return {"type": "json_schema", "json_schema": {"name": self.name, "schema": self.schema, "strict": True}}

    def tool(self) -> dict[str, Any]:
        """Anthropic Messages: the one tool the reply must call; its input is the answer."""
        return {
            "name": self.name,
            "description": "Give the answer: the JSON object the instructions ask for.",
            "input_schema": self.schema,
        }
