"""Core memory: per agent (and per subject) named JSON blocks, edited by dot path, every change undoable.

A path is dot-separated: dict keys, or list indices as decimal numbers ("people.0.name").
``replace`` sets the value at a path (missing dict keys on the way are created;
"" replaces the whole block); ``append`` adds to the list at a path (a missing key
becomes a one-item list). A change that would push the block past its size limit
(compact UTF-8 JSON, ``AMEM_CORE_BLOCK_LIMIT`` bytes) raises LimitExceeded and
writes nothing. Every change stores the whole value before and after in a
CoreEvent, so undo is "put ``before`` back", allowed while nothing changed since.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from engine import json_limits
from engine.errors import InvalidInput, LimitExceeded, NotFound
from engine.text import check_storable
from memories import ids
from memories.models import Agent, CoreBlock, CoreEvent

MAX_PATH_CHARS = 300


def limit_bytes() -> int:
    return int(settings.AMEM_CORE_BLOCK_LIMIT)


def size_of(value: Any) -> int:
    """Bytes of the compact UTF-8 JSON text: the unit of the size limit."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def check_name(name: str) -> str:
    return ids.check_block_name(name)


def check_subject(subject: str | None) -> str:
    """ "" (the agent itself) or a subject by the one rule of memories/ids.py, surrounding spaces trimmed."""
    if subject is not None and not isinstance(subject, str):
        raise InvalidInput("subject must be a string")
    subject = (subject or "").strip()
    return ids.check_subject(subject) if subject else ""


def blocks(agent: Agent, subject: str | None = None) -> list[CoreBlock]:
    """The agent's blocks about ``subject`` ("" = about the agent itself)."""
    return list(CoreBlock.objects.filter(agent=agent, subject=check_subject(subject)).order_by("name"))


def blocks_for_recall(agent: Agent, subject: str | None) -> list[CoreBlock]:
    """The agent's own blocks, then the subject's: what a prompt about ``subject`` needs."""
    chosen = blocks(agent, "")
    if subject and check_subject(subject):
        chosen += blocks(agent, subject)
    return chosen


def get_block(agent: Agent, name: str, subject: str | None = None) -> CoreBlock:
    block = CoreBlock.objects.filter(agent=agent, subject=check_subject(subject), name=check_name(name)).first()
    if block is None:
        raise NotFound("no such core memory block")
    return block


def parse_path(path: str) -> list[str]:
    if not isinstance(path, str) or len(path) > MAX_PATH_CHARS:
        raise InvalidInput(f"path must be a string of at most {MAX_PATH_CHARS} characters")
    if path == "":
        return []
    parts = path.split(".")
    if any(p == "" for p in parts):
        raise InvalidInput(f"path {path!r} has an empty segment")
    return parts


def _step(container: Any, key: str, path: str, *, create: bool) -> Any:
    if isinstance(container, dict):
        if key not in container:
            if not create:
                raise InvalidInput(f"path {path!r}: no key {key!r}")
            container[key] = {}
        return container[key]
    if isinstance(container, list):
        index = _index(container, key, path)
        return container[index]
    raise InvalidInput(f"path {path!r}: {key!r} is inside a value that is neither an object nor a list")


def _index(container: list, key: str, path: str) -> int:
    if not key.isdigit():
        raise InvalidInput(f"path {path!r}: {key!r} is not a list index")
    index = int(key)
    if index >= len(container):
        raise InvalidInput(f"path {path!r}: index {index} is past the end of a list of {len(container)}")
    return index


def with_replaced(value: Any, path: str, new: Any) -> Any:
    """A copy of ``value`` with ``new`` at ``path`` (the input is not changed)."""
    parts = parse_path(path)
    if not parts:
        return copy.deepcopy(new)
    root = copy.deepcopy(value) if isinstance(value, (dict, list)) else {}
    parent = root
    for key in parts[:-1]:
        parent = _step(parent, key, path, create=True)
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = copy.deepcopy(new)
    elif isinstance(parent, list):
        parent[_index(parent, last, path)] = copy.deepcopy(new)
    else:
        raise InvalidInput(f"path {path!r}: cannot set {last!r} inside a scalar")
    return root


def with_appended(value: Any, path: str, new: Any) -> Any:
    """A copy of ``value`` with ``new`` appended to the list at ``path`` (a missing key becomes a list)."""
    parts = parse_path(path)
    root = copy.deepcopy(value)
    if not parts:
        if not isinstance(root, list):
            raise InvalidInput("append to the whole block needs a block holding a list")
        root.append(copy.deepcopy(new))
        return root
    if not isinstance(root, (dict, list)):
        root = {}
    parent = root
    for key in parts[:-1]:
        parent = _step(parent, key, path, create=True)
    last = parts[-1]
    if isinstance(parent, dict):
        target = parent.setdefault(last, [])
    elif isinstance(parent, list):
        target = parent[_index(parent, last, path)]
    else:
        raise InvalidInput(f"path {path!r}: cannot append inside a scalar")
    if not isinstance(target, list):
        raise InvalidInput(f"path {path!r} does not hold a list")
    target.append(copy.deepcopy(new))
    return root


def _check_text(value: Any, where: str = "value") -> None:
    """Every string in the block, keys included, passes the one text rule (engine/text.py): a NUL
    or a lone surrogate would be refused by PostgreSQL's jsonb as a server error."""
    if isinstance(value, str):
        check_storable(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_storable(key, f"{where} key")
            _check_text(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_text(item, f"{where}.{i}")


def _check_size(value: Any) -> None:
    size, limit = size_of(value), limit_bytes()
    if size > limit:
        raise LimitExceeded(f"the block would be {size} bytes, over its limit of {limit}; nothing was changed")


def _change(agent: Agent, name: str, subject: str | None, action: str, path: str, compute, actor: str) -> CoreBlock:
    name, subject = check_name(name), check_subject(subject)
    with transaction.atomic():
        block, _ = CoreBlock.objects.select_for_update().get_or_create(agent=agent, subject=subject, name=name)
        before = block.value
        after = compute(before)
        json_limits.check_value(after, "the block")  # a long path can nest a small value deeper
        _check_text(after)
        _check_size(after)  # raises inside the transaction: a block created just now is rolled back too
        block.value, block.updated_at = after, timezone.now()
        block.save(update_fields=["value", "updated_at"])
        CoreEvent.objects.create(block=block, action=action, path=path, before=before, after=after, actor=actor)
    return block


def replace(
    agent: Agent, name: str, path: str, value: Any, *, subject: str | None = None, actor: str = ""
) -> CoreBlock:
    """Set ``value`` at ``path`` of block ``name`` (created empty if new)."""
    parse_path(path)
    json_limits.check_value(value)  # before anything below copies or walks it
    return _change(agent, name, subject, "replace", path, lambda v: with_replaced(v, path, value), actor or agent.pk)


def append(agent: Agent, name: str, path: str, value: Any, *, subject: str | None = None, actor: str = "") -> CoreBlock:
    """Append ``value`` to the list at ``path`` of block ``name`` (created empty if new)."""
    parse_path(path)
    json_limits.check_value(value)
    return _change(agent, name, subject, "append", path, lambda v: with_appended(v, path, value), actor or agent.pk)


def review_edit(block: CoreBlock, value: Any, actor: str) -> CoreBlock:
    """A reviewer replaces a whole block (same limit, same history)."""
    json_limits.check_value(value)
    return _change(block.agent, block.name, block.subject, "review_edit", "", lambda _v: copy.deepcopy(value), actor)


def undo(event: CoreEvent, actor: str) -> CoreEvent:
    """Put back the value ``event`` replaced; refused once a later change touched the block.

    An undo is a change like any other, so it can be undone too (a redo): one wrong click on
    Undo never wipes a block for good.
    """
    with transaction.atomic():
        block = CoreBlock.objects.select_for_update().get(pk=event.block_id)
        event = CoreEvent.objects.select_for_update().get(pk=event.pk)
        if event.undone_by_id is not None:
            raise InvalidInput("this change was already undone")
        if block.value != event.after:
            raise InvalidInput("the block changed after this edit; undo the later changes first")
        restored = CoreEvent.objects.create(
            block=block, action="undo", path=event.path, before=block.value, after=event.before, actor=actor
        )
        block.value, block.updated_at = event.before, timezone.now()
        block.save(update_fields=["value", "updated_at"])
        event.undone_by = restored
        event.save(update_fields=["undone_by"])
    return restored


def as_dict(block: CoreBlock) -> dict:
    return {
        "name": block.name,
        "subject": block.subject,
        "value": block.value,
        "size": size_of(block.value),
        "limit": limit_bytes(),
        "updated_at": block.updated_at,
    }
