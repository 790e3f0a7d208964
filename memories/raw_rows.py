"""Reads by primary key in SQL of their own, decoded as the ORM decodes them: the search path's reads.

A search reads a few fields of up to 80 candidate notes, the links around them and whole notes for
its matches. Through the ORM each read cost more in Python than in the database: compiling the
query, then a converter call per value (a JSON decode, a datetime, a UUID). At 10k notes the ORM's
reads were 20 of a search's 31 ms while SQLite answered them in about 2 (docs/benchmarks.md, "Search
without the ORM"). The SQL here is one plain SELECT by id; each value is decoded once, by the type of
its field, to what the ORM would have returned, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any, TypeVar, cast

from django.db import connections, models

Decoder = Callable[[object], object]
M = TypeVar("M", bound=models.Model)


def _uuid(value: object) -> object:
    # SQLite keeps 32 hex digits; PostgreSQL's driver returns a UUID already.
    return uuid.UUID(value) if isinstance(value, str) else value


def _json(value: object) -> object:
    # Both backends hand JSON over as text (Django registers a text loader for PostgreSQL's jsonb).
    # Most list fields of most notes are empty (readers, subjects, topics): a new list without the
    # decoder's call.
    if value == "[]":
        return []
    return json.loads(value) if isinstance(value, str) else value


def _datetime(value: object) -> object:
    # SQLite's driver parses the column but leaves it naive; the database holds UTC (USE_TZ).
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value


def _bool(value: object) -> object:
    return bool(value) if value is not None else None


def _decoder(field: models.Field) -> Decoder | None:
    target = cast(models.ForeignKey, field).target_field if field.is_relation else field
    kind = target.get_internal_type()
    if kind == "UUIDField":
        return _uuid
    if kind == "JSONField":
        return _json
    if kind == "DateTimeField":
        return _datetime
    if kind == "BooleanField":
        return _bool
    return None  # text and numbers come back as the ORM returns them


@cache
def _columns(model: type[models.Model], names: tuple[str, ...]) -> tuple[str, list[Decoder | None], list[str]]:
    """The SELECT list for the fields ``names`` (attribute names; "pk" for the key), their decoders
    and their attribute names."""
    fields = [cast(models.Field, model._meta.pk if name == "pk" else model._meta.get_field(name)) for name in names]
    quote = connections["default"].ops.quote_name  # every backend amem runs on quotes alike
    return (
        ", ".join(quote(str(f.column)) for f in fields),
        [_decoder(f) for f in fields],
        [f.attname for f in fields],
    )


def as_key(model: type[models.Model], value: object, alias: str = "default") -> object:
    """A primary key in the database's own form (a query parameter)."""
    return model._meta.pk.get_db_prep_value(value, connections[alias])


_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def uuid_keys(values: Iterable[object], alias: str = "default") -> dict[str, object]:
    """Each UUID (a ``uuid.UUID``, or text ``uuid.UUID`` reads; ValueError otherwise) by its canonical
    text, in the database's own form: a query parameter, and what a row returns (32 hex digits on
    SQLite, a UUID on PostgreSQL). ``as_key`` for many ids at once: a search turns about 200 ids
    into keys, and ``uuid.UUID`` plus the field's conversion cost 13 µs an id, a tenth of a loaded
    search's CPU; canonical text is only checked and stripped of its dashes."""
    native = connections[alias].features.has_native_uuid_field
    out: dict[str, object] = {}
    for value in values:
        text = str(value)
        if not isinstance(value, uuid.UUID) and not _CANONICAL_UUID.fullmatch(text):
            text = str(uuid.UUID(text))
        out[text] = uuid.UUID(text) if native else text.replace("-", "")
    return out


def select(
    model: type[models.Model],
    names: Sequence[str],
    where: str,
    params: Sequence[Any],
    *,
    alias: str = "default",
    decoded: bool = True,
    also: Sequence[str] = (),
) -> list[tuple]:
    """``SELECT names FROM model's table WHERE where``, each row decoded field by field.
    ``where`` is SQL with ``%s`` for ``params``; columns in it are written as the database names them.
    ``decoded=False``: the rows as the database returns them, for a caller that only compares ids.
    ``also``: SQL expressions after the fields (``undecoded_time``, ``uuid_text``), never decoded."""
    columns, decoders, _ = _columns(model, tuple(names))
    columns = ", ".join(part for part in (columns, *also) if part)
    table = connections[alias].ops.quote_name(model._meta.db_table)
    with connections[alias].cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {table} WHERE {where}", list(params))
        rows = cursor.fetchall()
    if not decoded:
        return rows
    pairs = [(i, decode) for i, decode in enumerate(decoders) if decode is not None]
    out: list[tuple] = []
    for row in rows:
        values = list(row)
        for i, decode in pairs:
            if values[i] is not None:
                values[i] = decode(values[i])
        out.append(tuple(values))
    return out


def instances(
    model: type[M],
    names: Sequence[str] | None,
    where: str,
    params: Sequence[Any],
    *,
    alias: str = "default",
) -> list[M]:
    """``select`` as model instances: every concrete field, or only ``names`` with the rest
    deferred (read on first touch, as ``QuerySet.only`` leaves them)."""
    # ``Model.from_db`` takes the values in the order of the model's fields.
    wanted = {model._meta.pk.attname, *(cast(models.Field, model._meta.get_field(n)).attname for n in names or ())}
    fields = tuple(f.attname for f in model._meta.concrete_fields if not names or f.attname in wanted)
    _, _, attnames = _columns(model, fields)
    return [model.from_db(alias, attnames, row) for row in select(model, fields, where, params, alias=alias)]


def undecoded_time(model: type[models.Model], name: str, alias: str = "default") -> str:
    """SQL for the datetime field ``name`` as a value that no driver decodes, that sorts as the time
    does and that ``decode_time`` turns into the field's datetime: for a caller that orders rows by
    it, or reads the times of few of many rows. A search orders several hundred link rows by their
    time and reads the times of few of its 80 candidates; turning each into an aware datetime
    (psycopg's and Django's loaders, SQLite's converter) was a seventh of a loaded PostgreSQL
    search's CPU."""
    connection = connections[alias]
    column = connection.ops.quote_name(str(cast(models.Field, model._meta.get_field(name)).column))
    if connection.vendor == "postgresql":
        return f"(EXTRACT(EPOCH FROM {column}) * 1000000)::bigint"  # microseconds: what the column holds
    # SQLite keeps the time as ISO text ("YYYY-MM-DD HH:MM:SS[.ffffff]", UTC), which sorts as it;
    # an expression has no declared type, so no converter parses it.
    return f"{column} || ''"


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def decode_time(value: object) -> dt.datetime | None:
    """An ``undecoded_time`` value as the aware datetime the ORM reads (None stays None)."""
    if value is None:
        return None
    if isinstance(value, int):
        return _EPOCH + dt.timedelta(microseconds=value)
    return cast(dt.datetime, _datetime(value))


def canonical_uuid(value: str) -> str:
    """A ``uuid_text`` value as ``str(uuid.UUID(value))``: PostgreSQL's is already; SQLite's 32 hex
    digits get their dashes, without a ``uuid.UUID`` made of them."""
    if len(value) == 36:
        return value
    return f"{value[:8]}-{value[8:12]}-{value[12:16]}-{value[16:20]}-{value[20:]}"


def uuid_text(model: type[models.Model], name: str, alias: str = "default") -> str:
    """SQL for the UUID field ``name`` as text without a ``uuid.UUID`` made of it: canonical text on
    PostgreSQL (whose driver builds a UUID per value, in Python), the stored 32 hex digits on SQLite."""
    connection = connections[alias]
    column = connection.ops.quote_name(str(cast(models.Field, model._meta.get_field(name)).column))
    return f"{column}::text" if connection.vendor == "postgresql" else column


def among_ids(column: str, keys: Sequence[object], alias: str = "default") -> tuple[str, list]:
    """The UUID column ``column`` is one of ``keys`` (the database's form of each, ``uuid_keys``), as SQL and its
    parameters. PostgreSQL gets one parameter, the array as text: with a ``%s`` per key psycopg
    parsed a new query text and quoted every key on each search, and a list parameter is quoted
    key by key as well (each about a tenth of a loaded search's CPU); one text is quoted once and
    the query's text, always the same, is parsed once. SQLite gets ``IN (%s, …)``: it has no arrays."""
    if connections[alias].vendor == "postgresql":
        return f"{column} = ANY(%s::uuid[])", ["{" + ",".join(map(str, keys)) + "}"]
    return f"{column} IN ({', '.join('%s' for _ in keys)})", list(keys)
