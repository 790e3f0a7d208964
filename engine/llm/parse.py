"""Defensive reply parsing: find the JSON a model meant, validate it per role.

Models wrap answers in reasoning blocks, code fences, chat special tokens, polite
preambles and trailing notes. We strip what we recognise, then try every balanced
{…}/[…] span in order and keep the first one the role's validator accepts. A validator
returns None for "not this shape" so drafts like "[0] and [2]" inside prose are skipped.

Only when no strict candidate fits is the reply repaired (json-repair: trailing commas,
single quotes, bare keys, unclosed brackets). A reply cut off at the token budget first
loses the value it was cut in, so a half-written fact is never stored as if complete.
A reply that only repeats the prompt (its example, its instructions, or the schema) is
not an answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import json_repair

from engine.llm.types import (
    CATEGORIES,
    CONFIDENCES,
    CRUD_ACTIONS,
    NOTE_TYPES,
    VERDICTS,
    Candidate,
    ConflictFinding,
    CrudOp,
    EpisodeSummary,
    EvolveResult,
    FactTriple,
    Judgement,
    MergeDecision,
    Neighbour,
    NeighbourUpdate,
    NoteFields,
    Reflection,
)

T = TypeVar("T")

_REASONING_RE = re.compile(r"<(think|thinking|reasoning|reflection)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_OPEN_REASONING_RE = re.compile(r"<(think|thinking|reasoning|reflection)\b[^>]*>", re.IGNORECASE)
_CLOSE_REASONING_RE = re.compile(r"</(think|thinking|reasoning|reflection)\s*>", re.IGNORECASE)
_SPECIAL_TOKEN_RE = re.compile(r"<\|[^<>|]{1,40}\|>|</?s>|\[/?INST\]|<end_of_turn>|<start_of_turn>(?:model|user)?")
_FENCE_RE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


def clean_reply(text: str) -> str:
    """Remove reasoning blocks, chat special tokens and code fences."""
    text = _REASONING_RE.sub(" ", text)
    # Some servers drop the opening tag and only send "…</think>"; everything before
    # a dangling close is reasoning.
    close = list(_CLOSE_REASONING_RE.finditer(text))
    if close:
        text = text[close[-1].end() :]
    # An unterminated <think> (budget ran out mid-thought) leaves nothing usable after it.
    opened = _OPEN_REASONING_RE.search(text)
    if opened:
        text = text[: opened.start()]
    text = _SPECIAL_TOKEN_RE.sub(" ", text)
    fenced = _FENCE_RE.findall(text)
    if fenced:
        # Keep the fence bodies first: they are what the model labelled as the answer.
        text = "\n".join(fenced) + "\n" + _FENCE_RE.sub(" ", text)
    return text.strip()


def candidate_values(text: str) -> Iterator[Any]:
    """Yield JSON values the reply might mean, most likely first."""
    cleaned = clean_reply(text)
    whole = _loads(cleaned)
    if whole is not _MISSING:
        if isinstance(whole, str):
            # A JSON document sent as a quoted string: unwrap once and start over.
            inner = _loads(whole.strip())
            if inner is not _MISSING:
                yield inner
        else:
            yield whole
    for span in _balanced_spans(cleaned):
        value = _loads(span)
        if value is not _MISSING:
            yield value


def repaired_values(text: str, *, truncated: bool = False) -> Iterator[Any]:
    """What json-repair makes of the reply from its first bracket on; the cut value dropped first."""
    cleaned = clean_reply(text)
    start = min((i for i in (cleaned.find("{"), cleaned.find("[")) if i >= 0), default=-1)
    if start < 0:
        return
    body = cleaned[start:]
    if truncated:
        cut = drop_cut_value(body)
        if cut is not None:
            yield from _repaired(cut)
    yield from _repaired(body)


def _repaired(text: str) -> Iterator[Any]:
    try:
        value = json_repair.repair_json(text, return_objects=True)
    except Exception:  # the repairer must never take the write path down with it
        return
    if value in ("", None):
        return
    yield value
    if isinstance(value, list):
        # Several JSON values in one reply come back as a list of them.
        yield from (item for item in value if isinstance(item, dict))


def drop_cut_value(text: str) -> str | None:
    """``text`` without the value it was cut in (up to the last comma outside a string), or None.

    Only when the text ends inside a string or right after a key: a reply cut between two
    complete values loses nothing, and json-repair closes its brackets.
    """
    scan = _StringScan()
    last_comma = -1
    last_token = ""
    for pos, char in enumerate(text):
        if not scan.outside(char):
            continue
        if char == ",":
            last_comma = pos
        if not char.isspace():
            last_token = char
    if not (scan.in_string or last_token == ":"):
        return None
    return text[:last_comma] if last_comma > 0 else None


@dataclass(frozen=True)
class Parsed(Generic[T]):
    value: T
    repaired: bool = False  # found only after json-repair


def parse(
    text: str,
    validate: Callable[[Any], T | None],
    *,
    truncated: bool = False,
    reject: Callable[[Any], bool] | None = None,
) -> Parsed[T] | None:
    """The first candidate the validator accepts (strict ones before repaired ones), or None.

    ``reject`` skips candidates that are not answers (an echo of the prompt, see ``echo_check``),
    and every value inside one: the ``["n1", "n2"]`` enum of an echoed link schema is a
    list of ids, but not a choice of them.
    """
    rejected: list[str] = []  # as JSON text; json.dumps of a value contains that of each part
    for repaired, values in ((False, candidate_values(text)), (True, repaired_values(text, truncated=truncated))):
        for value in values:
            if reject is not None:
                dumped = json.dumps(value, ensure_ascii=False, sort_keys=True)
                if reject(value):
                    rejected.append(dumped)
                    continue
                if any(dumped in echo for echo in rejected):
                    continue
            result = validate(value)
            if result is not None:
                return Parsed(result, repaired)
    return None


def parse_reply(text: str, validate: Callable[[Any], T | None], *, truncated: bool = False) -> T | None:
    """The parsed value, or None when nothing fits."""
    parsed = parse(text, validate, truncated=truncated)
    return None if parsed is None else parsed.value


_SCHEMA_KEYS = ("$schema", "properties", "json_schema")
_ECHO_MIN_CHARS = 24  # shorter phrases ("cannot both be true") are fair to reuse in an answer


def echo_check(prompt: str, variables: Iterable[str]) -> Callable[[Any], bool]:
    """A predicate: does a reply only repeat the prompt rather than answer it?

    Two shapes seen from small models: the JSON schema itself (``{"type": "object",
    "properties": …}``), and the prompt's own example or instructions copied back. The
    second is recognised by its text: every string of 24+ characters in the reply occurs in
    the prompt's fixed wording and none in what was filled in (the user's text, the notes).
    """
    filled = [v for v in variables if v]

    def echoed(value: Any) -> bool:
        if isinstance(value, dict) and (
            any(key in value for key in _SCHEMA_KEYS) or value.get("type") in ("object", "array")
        ):
            return True
        texts = [t.strip() for t in _strings(value) if len(t.strip()) >= _ECHO_MIN_CHARS]
        if not texts:
            return False
        return all(t in prompt and not any(t in v for v in filled) for t in texts)

    return echoed


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


_MISSING = object()
_MAX_SCAN_CHARS = 40_000
_MAX_SPAN_STARTS = 200


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _MISSING


def _balanced_spans(text: str) -> Iterator[str]:
    """Every balanced {…} or […] span, in order of its opening bracket; strings respected."""
    pairs = {"{": "}", "[": "]"}
    tried = 0
    for start, char in enumerate(text[:_MAX_SCAN_CHARS]):
        if char not in pairs:
            continue
        tried += 1
        if tried > _MAX_SPAN_STARTS:
            return  # a reply this noisy is not worth quadratic scanning
        depth = 0
        scan = _StringScan()
        stack: list[str] = []
        for pos in range(start, len(text)):
            c = text[pos]
            if not scan.outside(c):
                continue
            if c in pairs:
                stack.append(pairs[c])
                depth += 1
            elif c in "]}":
                if not stack or stack[-1] != c:
                    break
                stack.pop()
                depth -= 1
                if depth == 0:
                    yield text[start : pos + 1]
                    break


# ---------------------------------------------------------------- shared helpers


class _StringScan:
    """Walks JSON text a character at a time and tells which stand outside strings (escapes respected)."""

    def __init__(self) -> None:
        self.in_string = False
        self._escaped = False

    def outside(self, char: str) -> bool:
        """True for a character outside every string; an opening quote counts as outside, a closing one not."""
        if self.in_string:
            if self._escaped:
                self._escaped = False
            elif char == "\\":
                self._escaped = True
            elif char == '"':
                self.in_string = False
            return False
        if char == '"':
            self.in_string = True
        return True


def _str(value: Any, limit: int = 2000) -> str:
    return value.strip()[:limit] if isinstance(value, str) else ""


def _text(value: Any, limit: int = 2000) -> str:
    """Free text the model may have sent as a list of sentences or as a number."""
    if isinstance(value, list):
        value = " ".join(str(v).strip() for v in value if isinstance(v, (str, int, float)) and not isinstance(v, bool))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    return _str(value, limit)


def _label(value: Any) -> str:
    """An enum value the model may have wrapped in a list; lower-cased."""
    if isinstance(value, list) and value:
        value = value[0]
    return _str(value).lower()


def _enum(raw: str, allowed: tuple[str, ...]) -> str | None:
    """``raw`` matched to an allowed value: exactly (any case), or by a prefix of 4+ letters ("tech")."""
    for option in allowed:
        if option.lower() == raw:
            return option
    word = re.split(r"[^a-z]+", raw.strip())[0] if raw.strip() else ""
    if len(word) >= 4:
        for option in allowed:
            if option.lower().startswith(word) or word.startswith(option.lower()[:4]):
                return option
    return None


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "no"):
        return False
    return None


def _str_list(value: Any, limit: int) -> list[str]:
    if isinstance(value, str):
        value = re.split(r"[,，、;；]", value)
    if not isinstance(value, list):
        return []
    seen: list[str] = []
    for entry in value:
        # [{"keyword": "x"}, …]: the first text inside
        item = next((v for v in entry.values() if isinstance(v, str)), None) if isinstance(entry, dict) else entry
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            text = str(item).strip().strip("#").strip()
            if text and text.lower() not in (s.lower() for s in seen):
                seen.append(text[:80])
    return seen[:limit]


def _get(obj: dict[str, Any], *names: str) -> Any:
    """Look a field up by any of its spellings (snake_case, camelCase, any case)."""
    lowered = {str(k).lower().replace("_", ""): v for k, v in obj.items()}
    for name in names:
        key = name.lower().replace("_", "")
        if key in lowered:
            return lowered[key]
    return None


def _list_in(value: Any, *field_names: str) -> list[Any] | None:
    """A bare list, or the list under one of the given fields of an object."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        found = _get(value, *field_names)
        if isinstance(found, list):
            return found
    return None


def _int(value: Any) -> int | None:
    # bool is an int subclass; "1" and 1.0 are not indices the model was asked for.
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


# ---------------------------------------------------------------- per-role validators


def validate_note_fields(value: Any) -> NoteFields | None:
    if not isinstance(value, dict):
        return None
    keywords = _str_list(_get(value, "keywords"), 7)
    tags = _str_list(_get(value, "tags"), 4)
    context = _text(_get(value, "context"), 400)
    if not (keywords or tags or context):
        return None
    matched_category = _enum(_label(_get(value, "category")), CATEGORIES)
    matched_type = _enum(_label(_get(value, "note_type", "type")), NOTE_TYPES)
    category = matched_category or "General"
    note_type = matched_type or "memory"
    topics = _str_list(_get(value, "topics"), 5) if note_type == "knowledge" else []
    confidence = _confidence(_get(value, "confidence"))
    # What the model left empty or answered outside the allowed values: the client fills
    # these from the offline rules rather than storing a blank or a guess.
    gaps = {
        name
        for name, missing in (
            ("keywords", not keywords),
            ("tags", not tags),
            ("context", not context),
            ("category", matched_category is None),
            ("note_type", matched_type is None),
        )
        if missing
    }
    return NoteFields(
        keywords=keywords,
        tags=tags,
        context=context,
        category=category,
        note_type=note_type,
        topics=topics,
        confidence=confidence,
        importance=_importance(_get(value, "importance")),
        facts=_triples(_get(value, "facts", "triples")),
        gaps=frozenset(gaps),
    )


def _confidence(value: Any) -> str:
    """high / medium / low; a number in 0–1 (or a percentage) is read as such."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        share = value / 100 if value > 1 else value
        return "high" if share >= 0.75 else "medium" if share >= 0.4 else "low"
    raw = _label(value)
    return raw if raw in CONFIDENCES else "medium"


MAX_TRIPLES = 5


def _importance(value: Any) -> int | None:
    """1–10; a number given as text or a float is accepted, anything else is "not rated"."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    number = _int(value)
    return None if number is None else max(1, min(10, number))


def _triples(value: Any) -> tuple[FactTriple, ...]:
    """[[s, r, o], …] or [{"subject", "relation", "object"}, …]; malformed entries are dropped."""
    if not isinstance(value, list):
        return ()
    found: list[FactTriple] = []
    for item in value:
        if isinstance(item, dict):
            parts = [_get(item, "subject"), _get(item, "relation", "predicate"), _get(item, "object")]
        elif isinstance(item, list) and len(item) == 3:
            parts = list(item)
        else:
            continue
        texts = [_str(p, 200) for p in parts]
        if all(texts):
            triple = FactTriple(*texts)
            if triple not in found:
                found.append(triple)
        if len(found) == MAX_TRIPLES:
            break
    return tuple(found)


def link_validator(candidates: list[Candidate]) -> Callable[[Any], list[str] | None]:
    offered = [c.id for c in candidates]

    def validate(value: Any) -> list[str] | None:
        items = _list_in(value, "links", "link_ids", "ids")
        if items is None:
            return None
        chosen: list[str] = []
        for item in items:
            value = _get(item, "id") if isinstance(item, dict) else item
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                continue
            ident = str(value).strip()
            # Only ids we offered: a model must never invent a link target.
            if ident in offered and ident not in chosen:
                chosen.append(ident)
        return chosen

    return validate


def evolve_validator(neighbours: list[Neighbour]) -> Callable[[Any], EvolveResult | None]:
    known = [n.id for n in neighbours]

    def validate(value: Any) -> EvolveResult | None:
        if not isinstance(value, dict):
            return None
        raw_updates = _get(value, "updates", "neighbours", "neighbors")
        raw_connections = _get(value, "suggested_connections", "connections")
        if raw_updates is None and raw_connections is None:
            return None
        updates: list[NeighbourUpdate] = []
        for item in raw_updates if isinstance(raw_updates, list) else []:
            if not isinstance(item, dict):
                continue
            ident = str(_get(item, "id") or "").strip()
            if ident not in known or any(u.id == ident for u in updates):
                continue
            context = _str(_get(item, "context"), 400) or None
            tags_raw = _get(item, "tags")
            tags = _str_list(tags_raw, 6) if tags_raw is not None else None
            if context is None and not tags:
                continue
            updates.append(NeighbourUpdate(id=ident, context=context, tags=tags or None))
        connections = [c for c in _str_list(raw_connections, len(known)) if c in known]
        return EvolveResult(updates=updates, connections=connections)

    return validate


# The words other memory systems' prompts use (mem0: ADD), which small models repeat.
CRUD_SYNONYMS = {
    "ADD": "NEW",
    "CREATE": "NEW",
    "INSERT": "NEW",
    "MODIFY": "UPDATE",
    "EDIT": "UPDATE",
    "CHANGE": "UPDATE",
    "REPLACE": "UPDATE",
    "REMOVE": "DELETE",
    "RETIRE": "DELETE",
    "FORGET": "DELETE",
}


def crud_validator(existing_count: int) -> Callable[[Any], list[CrudOp] | None]:
    def validate(value: Any) -> list[CrudOp] | None:
        items = _list_in(value, "ops", "operations", "memories")
        if items is None:
            return None
        if items and not any(isinstance(item, dict) for item in items):
            return None
        ops: list[CrudOp] = []
        for item in items:
            if not isinstance(item, dict):
                continue
            raw_action = _label(_get(item, "action", "op", "event")).upper()
            action = CRUD_SYNONYMS.get(raw_action, raw_action)
            if action not in CRUD_ACTIONS:
                continue  # NONE and anything unknown
            fact = _text(_get(item, "fact", "text", "content"), 1000)
            idx = _int(_get(item, "existing_idx", "existingIdx", "idx", "index"))
            if idx is not None and not 0 <= idx < existing_count:
                idx = None
            if action == "NEW" and not fact:
                continue
            if action in ("UPDATE", "DELETE") and idx is None:
                continue  # nothing to act on
            if action == "UPDATE" and not fact:
                continue
            ops.append(CrudOp(action=action, fact=fact, existing_idx=idx))
            if len(ops) == 3:
                break
        return ops

    return validate


def validate_merge(value: Any) -> MergeDecision | None:
    if not isinstance(value, dict):
        return None
    flag = _bool(_get(value, "should_merge", "shouldMerge", "merge"))
    if flag is None:
        return None
    merged = _text(_get(value, "merged", "merged_content"), 4000)
    if flag and not merged:
        return MergeDecision()  # a merge without the merged text is unusable
    return MergeDecision(should_merge=flag, merged=merged if flag else "")


def validate_judgement(value: Any) -> Judgement | None:
    if not isinstance(value, dict):
        return None
    verdict = _label(_get(value, "verdict", "decision", "action", "type")).upper()
    if verdict not in VERDICTS:
        return None
    merged = _text(_get(value, "mergedContent", "merged_content", "merged"), 4000)
    reason = _text(_get(value, "reason"), 500)
    if verdict in ("EVOLVE", "EXPAND"):
        if not merged:
            return Judgement(verdict="NEW", reason="verdict without merged content")
        return Judgement(verdict=verdict, merged_content=merged, reason=reason)
    return Judgement(verdict=verdict, reason=reason)


def conflict_validator(size: int) -> Callable[[Any], list[ConflictFinding] | None]:
    def validate(value: Any) -> list[ConflictFinding] | None:
        items = _list_in(value, "pairs", "conflicts")
        if items is None:
            return None
        if items and not any(isinstance(item, dict) for item in items):
            return None
        found: list[ConflictFinding] = []
        seen: set[tuple[int, int]] = set()
        for item in items:
            if not isinstance(item, dict):
                continue
            a, b = _int(_get(item, "a")), _int(_get(item, "b"))
            if a is None or b is None or a == b:
                continue
            if not (0 <= a < size and 0 <= b < size):
                continue
            low, high = min(a, b), max(a, b)
            if (low, high) in seen:
                continue
            seen.add((low, high))
            superseded = _int(_get(item, "superseded"))
            if superseded not in (a, b):
                superseded = None
            found.append(ConflictFinding(a=low, b=high, superseded=superseded, reason=_str(_get(item, "reason"), 500)))
        return found

    return validate


MOODS = ("positive", "neutral", "negative", "mixed")


def validate_episode(value: Any) -> EpisodeSummary | None:
    if not isinstance(value, dict):
        return None
    summary = _str(_get(value, "summary"), 1500)
    if not summary:
        return None
    mood = _str(_get(value, "mood")).lower()
    return EpisodeSummary(
        summary=summary,
        decisions=_str_list(_get(value, "decisions"), 6),
        open_items=_str_list(_get(value, "open_items", "openItems", "open"), 6),
        topics=_str_list(_get(value, "topics"), 6),
        mood=mood if mood in MOODS else "neutral",
    )


def reflection_validator(size: int) -> Callable[[Any], Reflection | None]:
    def validate(value: Any) -> Reflection | None:
        if not isinstance(value, dict):
            return None
        text = _str(_get(value, "reflection", "text"), 2000)
        raw = _get(value, "cites", "sources")
        if not text or not isinstance(raw, list):
            return None
        # Only numbers we showed: a model must never cite a note that does not exist.
        cites = [i for i in dict.fromkeys(_int(c) for c in raw) if i is not None and 0 <= i < size]
        return Reflection(text=text, cites=cites)

    return validate
