"""Bounded JSON: how deep a value may nest, checked before anything walks it.

Parsers, ``copy.deepcopy``, ``json.dumps`` and pydantic all recurse, so a value nested a few
hundred levels deep (about 1 KB of ``[[[…]]]``) ended in a RecursionError, a 500, in
whichever walked it first. Every JSON value that comes in — a request body, a core block
edited by the API, the MCP server or the review app — is measured here first, by loops
that never recurse, and refused past ``MAX_DEPTH``. Sizes have their own limits where the
value is kept (the request body limit, ``AMEM_CORE_BLOCK_LIMIT``).
"""

from __future__ import annotations

from typing import Any

from engine.errors import InvalidInput

# Deep enough for any structured memory (a core block is a few levels: people.0.pets.1.name),
# far below the interpreter's recursion limit (1,000) that the walkers above would hit.
MAX_DEPTH = 64
# A request body holds such a value inside its own object (and a list of them, at most): two more.
MAX_BODY_DEPTH = MAX_DEPTH + 2


def text_depth(raw: bytes | str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text, strings skipped; one pass, no parse."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in "]}":
            depth -= 1
    return deepest


def value_depth(value: Any) -> int:
    """The deepest nesting of lists and dicts in a parsed value (a scalar is 0), by an explicit stack."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                return deepest  # no need to measure the rest: it is refused
        stack.extend((child, depth) for child in children)
    return deepest


def _refuse(what: str, depth: int, limit: int) -> InvalidInput:
    shown = f"{depth}" if depth <= 10 * limit else f"more than {10 * limit}"
    return InvalidInput(f"{what} nests {shown} levels deep; the limit is {limit}")


def check_text(raw: bytes | str, what: str = "the JSON body", limit: int = MAX_BODY_DEPTH) -> None:
    depth = text_depth(raw)
    if depth > limit:
        raise _refuse(what, depth, limit)


def check_value(value: Any, what: str = "value") -> Any:
    depth = value_depth(value)
    if depth > MAX_DEPTH:
        raise _refuse(what, depth, MAX_DEPTH)
    return value
