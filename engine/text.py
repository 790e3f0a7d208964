"""Text rules shared by every write path: validation, normalisation, the quality gate."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from engine.errors import InvalidInput, QualityRejected

# Signals that a note describes a passing state (docs/architecture.md §3): kept, but marked ephemeral.
EPHEMERAL_SIGNALS = (
    "待跑",
    "等确认",
    "昨日",
    "明天完成",
    "todo tomorrow",
    "pending confirmation",
    "waiting for confirmation",
    "to be confirmed",
    "will finish tomorrow",
)

# C0/C1 control characters other than tab, newline and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class CheckedText:
    text: str
    ephemeral: bool


def check_content(text: object, *, min_chars: int, max_chars: int) -> CheckedText:
    """Validate a note's text; raise before anything is written.

    InvalidInput: not a string, undecodable, control characters, too long.
    QualityRejected: fewer than ``min_chars`` letters or digits once trimmed, a CJK character
    counting ``CJK_WEIGHT`` (3): one carries about a word, so 我住在上海。 and "Mia is 7." pass and "ok"
    does not.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput("text is not valid UTF-8") from None
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        raise InvalidInput("text is not valid UTF-8 (lone surrogate)")
    if _CONTROL.search(text):
        raise InvalidInput("text contains control characters")
    trimmed = text.strip()
    if len(trimmed) > max_chars:
        raise InvalidInput(f"text is {len(trimmed)} characters; the limit is {max_chars}")
    if weighted_length(trimmed) < min_chars:
        raise QualityRejected(
            f"[quality] text is shorter than {min_chars} characters (letters and digits; a CJK character counts {CJK_WEIGHT})"
        )
    lowered = trimmed.casefold()
    return CheckedText(trimmed, any(signal in lowered for signal in EPHEMERAL_SIGNALS))


# A CJK character carries about what a short English word does: "我住在上海。" is a whole fact.
CJK_WEIGHT = 3
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def weighted_length(text: str) -> int:
    """Letters and digits, a CJK character counting ``CJK_WEIGHT``: what the length gate measures.

    Spaces and punctuation carry nothing, so "Mia is 7." (6) and "我不吃香菜。" (15) pass a gate
    of 4 while "ok" and "??" do not.
    """
    return sum(CJK_WEIGHT if _CJK.match(ch) else 1 for ch in text if ch.isalnum())


def normalise(text: str) -> str:
    """The form compared by L1 dedup: NFKC, case-folded, whitespace collapsed."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def content_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def storable(text: str) -> bool:
    """No control characters and no lone surrogates (which PostgreSQL's jsonb and text refuse)."""
    return not _CONTROL.search(text) and not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def check_storable(value: object, field: str) -> str:
    """Any caller-supplied text (a query, a turn, a label, an id): a string the database and the
    tokenizer can take, or InvalidInput naming ``field``. The API does the same in its schemas."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string")
    if not storable(value):
        raise InvalidInput(f"{field} must not contain control characters or lone surrogates")
    return value


def check_context(context: object, *, max_chars: int) -> str:
    """A caller-supplied context line (what the note answers or where it happened); may be empty."""
    if context is None:
        return ""
    if not isinstance(context, str):
        raise InvalidInput("context must be a string")
    if not storable(context):
        raise InvalidInput("context contains control characters or invalid UTF-8")
    context = context.strip()
    if len(context) > max_chars:
        raise InvalidInput(f"context is {len(context)} characters; the limit is {max_chars}")
    return context


def embedding_text(content: str, keywords=(), tags=(), context: str = "") -> str:
    """The one recipe (docs/architecture.md §3) for the dense vector *and* the BM25 document:
    content + keywords + tags + context.

    The seed left the context out of BM25. On LoCoMo, where an episodic turn's context is
    the turn before it, indexing it for BM25 too raised recall@10 by 0.020
    (docs/benchmarks.md): a question's words are often those of the turn it answers.
    """
    parts = [content, " ".join(keywords or ()), " ".join(tags or ()), context or ""]
    return " ".join(p for p in parts if p)
