"""mem0's ``filters`` language, read into one predicate over amem notes (docs/api.md, "mem0's client").

A filter is a JSON object: every key must hold (AND), ``AND`` / ``OR`` take lists of filters,
``NOT`` a filter or a list of them (none may hold). A field holds a plain value (equal), ``"*"``
(any value: the field is set), or an object of operators: ``in``, ``nin``, ``ne``, ``gt``,
``gte``, ``lt``, ``lte``, ``contains``, ``icontains`` (and ``eq``).

The fields, read from a note:

* ``user_id``: the note's subjects (who it is about; a note may name several)
* ``agent_id``: the agent that wrote it (its owner)
* ``run_id``: its conversation session
* ``created_at`` / ``updated_at``: times; a date alone (``2024-07-01``) means that whole day, so
  ``lte`` includes it and ``gt`` starts after it; a time without a zone is UTC
* ``categories``: amem's one category, lower-cased (``personal``, ``technical`` …)
* ``metadata``: ``{"metadata": {"key": value or operators}}``, on what the caller stored

Anything else (``app_id``, unknown fields or operators, a value of the wrong kind) is an
InvalidInput naming where it is, so a filter amem cannot apply is never half applied.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from engine.errors import InvalidInput
from memories.models import Note

WILDCARD = "*"
COMBINERS = ("AND", "OR", "NOT")
OPERATORS = ("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "icontains")
ORDERED = ("gt", "gte", "lt", "lte")
TIMES = ("created_at", "updated_at")
FIELDS = ("user_id", "agent_id", "run_id", *TIMES, "categories", "metadata")
NO_APPS = "amem has no apps: the key decides the agent (docs/api.md)"


@dataclass(frozen=True)
class NoteView:
    """What a filter reads of a note, each field as a list of values (empty: not set)."""

    user_id: tuple[str, ...]
    agent_id: tuple[str, ...]
    run_id: tuple[str, ...]
    created_at: tuple[dt.datetime, ...]
    updated_at: tuple[dt.datetime, ...]
    categories: tuple[str, ...]
    metadata: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def of(cls, note: Note) -> NoteView:
        return cls(
            user_id=tuple(note.subjects or ()),
            agent_id=(note.owner,),
            run_id=(note.session,) if note.session else (),
            created_at=(note.created_at,),
            updated_at=(note.updated_at,),
            categories=(note.category.lower(),),
            metadata=note.metadata or {},
        )


Predicate = Callable[[NoteView], bool]


def always(_view: NoteView) -> bool:
    return True


def compile_filters(filters: object, where: str = "filters") -> Predicate:
    """One predicate for a whole filter object (None or {} holds for every note)."""
    if filters is None:
        return always
    if not isinstance(filters, Mapping):
        raise InvalidInput(f"{where}: must be a JSON object")
    parts = [_clause(key, value, f"{where}.{key}") for key, value in filters.items()]
    return lambda view: all(part(view) for part in parts)


def _clause(key: str, value: object, where: str) -> Predicate:
    if key in ("AND", "OR"):
        if not isinstance(value, list):
            raise InvalidInput(f"{where}: must be a list of filters")
        parts = [compile_filters(item, f"{where}.{i}") for i, item in enumerate(value)]
        if key == "AND":
            return lambda view: all(part(view) for part in parts)
        return lambda view: any(part(view) for part in parts)
    if key == "NOT":
        items = value if isinstance(value, list) else [value]
        parts = [
            compile_filters(item, f"{where}.{i}" if isinstance(value, list) else where) for i, item in enumerate(items)
        ]
        return lambda view: not any(part(view) for part in parts)
    if key == "app_id":
        raise InvalidInput(f"{where}: {NO_APPS}")
    if key == "metadata":
        return _metadata(value, where)
    if key not in FIELDS:
        raise InvalidInput(f"{where}: unknown filter field (amem reads {', '.join(FIELDS)} and {', '.join(COMBINERS)})")
    condition = _condition(value, where, times=key in TIMES)
    return lambda view: condition(getattr(view, key))


def _metadata(value: object, where: str) -> Predicate:
    if not isinstance(value, Mapping) or not value:
        raise InvalidInput(f"{where}: must be an object of metadata keys and the values they must hold")
    conditions = {key: _condition(cond, f"{where}.{key}", times=False) for key, cond in value.items()}

    def holds(view: NoteView) -> bool:
        return all(cond((view.metadata[key],) if key in view.metadata else ()) for key, cond in conditions.items())

    return holds


Condition = Callable[[tuple], bool]


def _condition(value: object, where: str, *, times: bool) -> Condition:
    """A test over a field's values: a plain value, ``"*"``, or an object of operators (all must hold)."""
    if value == WILDCARD:
        return bool  # set: any value at all
    if not isinstance(value, Mapping):
        return _operator("eq", value, where, times)
    if not value:
        raise InvalidInput(f"{where}: an empty object is no condition")
    tests = [_operator(op, operand, f"{where}.{op}", times) for op, operand in value.items()]
    return lambda values: all(test(values) for test in tests)


def _operator(op: str, operand: object, where: str, times: bool) -> Condition:
    if op not in OPERATORS:
        raise InvalidInput(f"{where}: unknown operator (amem reads {', '.join(OPERATORS)})")
    if op in ("in", "nin"):
        if not isinstance(operand, list) or not all(_scalar(item) for item in operand):
            raise InvalidInput(f"{where}: must be a list of plain values")
        wanted = [_moment(item, where, "gte") if times else item for item in operand]
        if op == "in":
            return lambda values: any(v in wanted for v in values)
        return lambda values: not any(v in wanted for v in values)
    if not _scalar(operand):
        raise InvalidInput(f"{where}: must be a plain value (a string, a number or true/false)")
    if op in ("contains", "icontains"):
        needle = str(operand)
        if op == "icontains":
            needle = needle.casefold()
            return lambda values: any(needle in str(v).casefold() for v in values)
        return lambda values: any(needle in str(v) for v in values)
    if times:
        return _time_operator(op, operand, where)
    if op == "eq":
        return lambda values: operand in values
    if op == "ne":
        return lambda values: operand not in values
    return _ordered(op, operand, where)


def _ordered(op: str, operand: object, where: str) -> Condition:
    if isinstance(operand, bool) or not isinstance(operand, (int, float, str)):
        raise InvalidInput(f"{where}: must be a number or a string")

    def holds(values: tuple) -> bool:
        for v in values:
            # Only values of the operand's kind compare: a string is never "greater" than a number.
            if isinstance(v, bool) or isinstance(v, str) != isinstance(operand, str):
                continue
            if (op == "gt" and v > operand) or (op == "gte" and v >= operand):
                return True
            if (op == "lt" and v < operand) or (op == "lte" and v <= operand):
                return True
        return False

    return holds


def _time_operator(op: str, operand: object, where: str) -> Condition:
    at = _moment(operand, where, op)
    tests: dict[str, Callable[[dt.datetime], bool]] = {
        "eq": lambda v: _same_moment(v, operand, at),
        "ne": lambda v: not _same_moment(v, operand, at),
        "gt": lambda v: v > at if _has_time(operand) else v >= at,
        "gte": lambda v: v >= at,
        "lt": lambda v: v < at,
        "lte": lambda v: v <= at if _has_time(operand) else v < at,
    }
    test = tests[op]
    return lambda values: any(test(v) for v in values)


def _same_moment(value: dt.datetime, operand: object, at: dt.datetime) -> bool:
    if _has_time(operand):
        return value == at
    return at <= value < at + dt.timedelta(days=1)


def _has_time(operand: object) -> bool:
    return isinstance(operand, (int, float)) or (isinstance(operand, str) and len(operand.strip()) > 10)


def _moment(operand: object, where: str, op: str) -> dt.datetime:
    """An ISO date or time (or Unix seconds) as an aware datetime; a date alone with ``lte`` or ``gt``
    is the end of that day, so the whole day counts as the date."""
    if isinstance(operand, bool):
        raise InvalidInput(f"{where}: must be an ISO 8601 date or time")
    if isinstance(operand, (int, float)):
        return dt.datetime.fromtimestamp(operand, tz=dt.UTC)
    if not isinstance(operand, str):
        raise InvalidInput(f"{where}: must be an ISO 8601 date or time")
    text = operand.strip()
    try:
        if len(text) <= 10:
            day = dt.date.fromisoformat(text)
            start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
            return start + dt.timedelta(days=1) if op in ("lte", "gt") else start
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{where}: {operand!r} is not an ISO 8601 date or time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def plain_value(filters: object, name: str) -> str | None:
    """The value ``name`` must equal for the whole filter to hold: a plain string at the top level or
    in a top-level AND, else None. It narrows a search (the subject) or names the acting agent."""
    if not isinstance(filters, Mapping):
        return None
    value = filters.get(name)
    if isinstance(value, str) and value != WILDCARD:
        return value
    both = filters.get("AND")
    for item in both if isinstance(both, list) else ():
        found = plain_value(item, name)
        if found is not None:
            return found
    return None


def only_scope(filters: object) -> bool:
    """Whether the filter names only the user and the agent, by plain values (the common case): the
    index query is already scoped to them, so a search needs no deeper pool for the filter."""
    if filters is None:
        return True
    if not isinstance(filters, Mapping):
        return False
    for key, value in filters.items():
        if key == "AND" and isinstance(value, list):
            if not all(only_scope(item) for item in value):
                return False
        elif key not in ("user_id", "agent_id") or not isinstance(value, str) or value == WILDCARD:
            return False
    return True
