"""The one rule for each kind of identifier, whichever way it comes in.

Agent ids, collection names, core block names, subjects and sessions reach file names
(exports, index folders), headers and logs. The API, the admin, the commands and the
imports all check them here, and the models check them again on save
(``CheckedIds``), so an id that one way refuses cannot come in by another: an export
whose header names the agent ``../../tmp/x`` is refused like ``amem_agent create``
refuses it.

Agent ids and collections are slugs (they become file names); block names are slugs
that start with a letter; subjects and sessions are free text (a person's name, a
client's session key) of at most 200 characters without control characters, so they
can neither break a log line nor a header.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

from django.core.exceptions import ValidationError

from engine.errors import InvalidInput

MAX_LABEL_CHARS = 200

# \Z, not $: "$" also matches before a trailing newline, and "demo\n" is no agent id.
_SLUG = re.compile(r"\A[a-z0-9][a-z0-9_-]{0,63}\Z")
_BLOCK_NAME = re.compile(r"\A[a-z][a-z0-9_-]{0,63}\Z")
# Every C0 and C1 control character (tab and newline too: a label is one line), lone surrogates.
_NOT_IN_LABEL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")

AGENT_ID_RULE = "1–64 lower-case letters, digits, '-' or '_', starting with a letter or digit"
BLOCK_NAME_RULE = "1–64 lower-case letters, digits, '-' or '_', starting with a letter"
LABEL_RULE = f"1–{MAX_LABEL_CHARS} characters without control characters or surrounding spaces"


class InvalidId(InvalidInput, ValidationError, ValueError):
    """An identifier breaks its rule: a 400 for the API and one line for a command (InvalidInput),
    a field error for forms and the admin (ValidationError), a schema error for pydantic (ValueError)."""

    def __init__(self, kind: str, value: object, rule: str) -> None:
        shown = repr(value) if not isinstance(value, str) else repr(value[:80])
        self.text = f"{kind} {shown} is not valid: {rule}"
        super().__init__(self.text, code="invalid_id")

    def __str__(self) -> str:
        return self.text


def _slug(value: object, kind: str, pattern: re.Pattern[str], rule: str) -> str:
    if not isinstance(value, str) or not pattern.match(value):
        raise InvalidId(kind, value, rule)
    return value


# Module-level functions, not closures: the models name them as field validators, and a
# migration can only refer to a function it can import.
def check_agent_id(value: object) -> str:
    return _slug(value, "agent id", _SLUG, AGENT_ID_RULE)


def check_collection(value: object) -> str:
    return _slug(value, "collection", _SLUG, AGENT_ID_RULE)


def check_block_name(value: object) -> str:
    return _slug(value, "block name", _BLOCK_NAME, BLOCK_NAME_RULE)


def check_label(value: object, kind: str = "label") -> str:
    """A subject or a session: one line of printable text, already trimmed."""
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MAX_LABEL_CHARS
        or value != value.strip()
        or _NOT_IN_LABEL.search(value)
    ):
        raise InvalidId(kind, value, LABEL_RULE)
    return value


def check_subject(value: object) -> str:
    return check_label(value, "subject")


def check_session(value: object) -> str:
    return check_label(value, "session")


def check_labels(values: Iterable[object], kind: str) -> list[str]:
    return [check_label(v, kind) for v in values]


def file_in(folder: Path, agent_id: str, suffix: str) -> Path:
    """``folder/<agent_id><suffix>``, built only from a checked id and verified to stay in ``folder``."""
    base = folder.resolve()
    path = (base / f"{check_agent_id(agent_id)}{suffix}").resolve()
    if path.parent != base:
        raise InvalidId("agent id", agent_id, f"{AGENT_ID_RULE} (it would leave {folder})")
    return path


class CheckedIds:
    """A model whose id fields are checked on every save and by ``check_ids()`` before a bulk insert.

    ``ID_FIELDS`` maps an attribute to its rule. ``bulk_create`` skips ``save()``, so the code
    that bulk-inserts (the restore of an export) calls ``check_ids()`` on each object itself.
    Blank values of optional fields (an agent without its own collection) are allowed.
    """

    ID_FIELDS: ClassVar[dict[str, Callable[[Any], Any]]] = {}
    OPTIONAL_IDS: ClassVar[frozenset[str]] = frozenset()

    def check_ids(self) -> None:
        for name, rule in self.ID_FIELDS.items():
            value = getattr(self, name)
            if name in self.OPTIONAL_IDS and value in ("", None):
                continue
            rule(value)

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.check_ids()
        super().save(*args, **kwargs)  # type: ignore[misc]


# Field validators (Django wants callables returning None; the admin's forms run them).
def validate_agent_id(value: object) -> None:
    check_agent_id(value)


def validate_collection(value: object) -> None:
    check_collection(value)


def validate_block_name(value: object) -> None:
    check_block_name(value)


def validate_label(value: object) -> None:
    check_label(value)
