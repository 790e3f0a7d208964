"""Turn files into memories to import: JSONL of notes, plain text, Markdown, OpenClaw MEMORY.md,
chat transcripts.

Only parsing lives here; every item is then written by ``add_memory``, so the
quality gate and the dedup ladder apply to imports as to any other write. Chat
turns are the exception: they go to ``add_conversation`` (engine/write/conversation.py),
the episodic path, each turn with the one before it as its context.

* JSONL: one object per line with ``text`` (or ``content``) and optionally
  ``subjects``, ``sources``, ``note_type``, ``scope`` and the original time as
  ``occurred_at`` / ``created_at`` / ``timestamp`` (ISO 8601; no offset = UTC).
* Text: one memory per paragraph (blank-line separated).
* Markdown (incl. OpenClaw's MEMORY.md and its daily logs ``YYYY-MM-DD.md``):
  one memory per list item or paragraph; headings are not memories, but a
  list item under a section heading is prefixed with it ("Preferences: dark
  mode"), because a bare bullet often means nothing on its own. A daily log's
  date becomes the memories' time. Code fences and front matter are skipped.
* Conversation (never detected, asked for by name): JSONL, one turn per line
  with ``text`` and optionally ``speaker`` (the note reads "speaker: text"),
  ``session`` (default: the file name), ``id`` (kept as the note's source),
  ``occurred_at`` and ``subjects``.

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
from engine.write.conversation import Turn
from engine.write.pipeline import clean_labels

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


@dataclass(frozen=True)
class ChatLine:
    where: str  # file:line
    said: str  # the text without the speaker: what the quality gate judges
    turn: Turn


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


def json_lines(text: str, name: str) -> Iterator[tuple[str, dict]]:
    """Each non-blank line as (file:line, object); anything but a JSON object raises."""
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
        yield where, obj


def jsonl_items(text: str, name: str) -> Iterator[Item]:
    for where, obj in json_lines(text, name):
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


def conversation_turns(text: str, name: str) -> Iterator[ChatLine]:
    """Each chat turn of a transcript; the session defaults to ``name``, so one file is one session.

    A turn without text raises like a broken line (the other formats leave it to the
    quality gate): the turns around it would otherwise get a context they never had.
    """
    for where, obj in json_lines(text, name):
        body, speaker, session, source = (obj.get(k) for k in ("text", "speaker", "session", "id"))
        if not isinstance(body, str) or not body.strip():
            raise InvalidInput(f'{where}: a turn needs a non-empty "text" string')
        if speaker is not None and not isinstance(speaker, str):
            raise InvalidInput(f'{where}: "speaker" must be a string')
        for key, value in (("session", session), ("id", source)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, str | int | float)):
                raise InvalidInput(f'{where}: "{key}" must be a string or a number')
        if source not in (None, "") and len(str(source)) > 200:
            raise InvalidInput(f'{where}: "id" is longer than 200 characters')
        try:
            subjects = clean_labels(obj.get("subjects"), "subjects")
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc}") from None
        said = body.strip()
        turn = Turn(
            text=f"{speaker.strip()}: {said}" if speaker and speaker.strip() else said,
            session=name if session in (None, "") else str(session),
            source=None if source in (None, "") else str(source),
            occurred_at=parse_time(obj.get("occurred_at"), where),
            subjects=subjects,
        )
        yield ChatLine(where, said, turn)


def chunks(paragraph: str) -> list[str]:
    """A paragraph, cut at sentence ends into pieces of at most MAX_CHUNK characters."""
    if len(paragraph) <= MAX_CHUNK:
        return [paragraph]
    pieces: list[str] = []
    current = ""
    for whole in _SENTENCE_END.split(paragraph):
        sentence = whole
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


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path.name}: not valid UTF-8") from None


def items_from(path: Path, kind: str | None = None) -> Iterator[Item]:
    """Parse one file; ``kind`` overrides the detection."""
    text = _read(path)
    kind = kind or detect(path, text.split("\n", 1)[0])
    parser = {"jsonl": jsonl_items, "markdown": markdown_items, "text": text_items}[kind]
    return parser(text, path.name)


def turns_from(path: Path) -> Iterator[ChatLine]:
    """Parse one chat transcript (see ``conversation_turns``)."""
    return conversation_turns(_read(path), path.name)
