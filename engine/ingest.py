"""Turn files into memories to import: JSONL of notes, plain text, Markdown, OpenClaw MEMORY.md.

Only parsing lives here; every item is then written by ``add_memory``, so the
quality gate and the dedup ladder apply to imports as to any other write.

* JSONL: one object per line with ``text`` (or ``content``) and optionally
  ``subjects``, ``sources``, ``note_type``, ``scope`` and the original time as
  ``occurred_at`` / ``created_at`` / ``timestamp`` (ISO 8601; no offset = UTC).
* Text: one memory per paragraph (blank-line separated).
* Markdown (incl. OpenClaw's MEMORY.md and its daily logs ``YYYY-MM-DD.md``):
  one memory per list item or paragraph; headings are not memories, but a
  list item under a section heading is prefixed with it ("Preferences: dark
  mode"), because a bare bullet often means nothing on its own. A daily log's
  date becomes the memories' time. Code fences and front matter are skipped.

Paragraphs longer than ``MAX_CHUNK`` characters are cut at sentence ends.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import InvalidInput

MAX_CHUNK = 2000
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_DAILY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


@dataclass
class Item:
    text: str
    where: str  # file:line, for the rejected list
    subjects: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    note_type: str | None = None
    scope: str | None = None
    occurred_at: dt.datetime | None = None


def detect(path: Path, first_line: str) -> str:
    """jsonl | markdown | text, from the file name (and for .json/.jsonl nothing else)."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if suffix in (".md", ".markdown"):
        return "markdown"
    return "text"


def parse_time(value: object, where: str) -> dt.datetime | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: the time must be an ISO 8601 string")
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{where}: {value!r} is not an ISO 8601 time") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def jsonl_items(text: str, name: str) -> Iterator[Item]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{name}:{number}"
        try:
            obj = json.loads(raw)
        except ValueError:
            raise InvalidInput(f"{where}: not a JSON object") from None
        if not isinstance(obj, dict):
            raise InvalidInput(f"{where}: not a JSON object")
        when = next((obj[k] for k in ("occurred_at", "created_at", "timestamp") if obj.get(k)), None)
        yield Item(
            text=obj.get("text", obj.get("content", "")),
            where=where,
            subjects=obj.get("subjects") or [],
            sources=obj.get("sources") or [],
            note_type=obj.get("note_type"),
            scope=obj.get("scope"),
            occurred_at=parse_time(when, where),
        )


def chunks(paragraph: str) -> list[str]:
    """A paragraph, cut at sentence ends into pieces of at most MAX_CHUNK characters."""
    if len(paragraph) <= MAX_CHUNK:
        return [paragraph]
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(paragraph):
        while len(sentence) > MAX_CHUNK:  # one endless sentence: cut hard
            pieces.append(sentence[:MAX_CHUNK])
            sentence = sentence[MAX_CHUNK:]
        if current and len(current) + 1 + len(sentence) > MAX_CHUNK:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def text_items(text: str, name: str) -> Iterator[Item]:
    block: list[str] = []
    start = 1
    for number, line in enumerate([*text.splitlines(), ""], start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line.strip())
            continue
        if block:
            for piece in chunks(" ".join(block)):
                yield Item(piece, f"{name}:{start}")
            block = []


def markdown_items(text: str, name: str) -> Iterator[Item]:
    daily = _DAILY.match(Path(name).name)
    when = dt.datetime(int(daily[1]), int(daily[2]), int(daily[3]), tzinfo=dt.UTC) if daily else None
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":  # YAML front matter
        end = next((i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---"), 0)
        lines = [""] * (end + 1) + lines[end + 1 :]
    section = ""
    block: list[str] = []
    bullet = False
    start = 1
    fenced = False

    def flush() -> Iterator[Item]:
        if not block:
            return
        body = " ".join(block)
        if bullet and section:
            body = f"{section}: {body}"
        for piece in chunks(body):
            yield Item(piece, f"{name}:{start}", occurred_at=when)

    for number, line in enumerate([*lines, ""], start=1):
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            yield from flush()
            block = []
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        item = _BULLET.match(line)
        if heading or item or not line.strip():
            yield from flush()
            block = []
        if heading:
            # The document title (a lone "#") names the file, not a section.
            section = heading[2] if len(heading[1]) > 1 else ""
        elif item:
            block, bullet, start = [item[1].strip()], True, number
        elif line.strip():
            if not block:
                bullet, start = False, number
            block.append(line.strip())


def items_from(path: Path, kind: str | None = None) -> Iterator[Item]:
    """Parse one file; ``kind`` overrides the detection."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path.name}: not valid UTF-8") from None
    kind = kind or detect(path, text.split("\n", 1)[0])
    parser = {"jsonl": jsonl_items, "markdown": markdown_items, "text": text_items}[kind]
    return parser(text, path.name)
