"""Plain value types passed in and out of the LLM layer (no Django, no SDKs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

CATEGORIES: tuple[str, ...] = (
    "Technical",
    "Business",
    "Personal",
    "Project",
    "Research",
    "System",
    "General",
)
NOTE_TYPES: tuple[str, ...] = ("memory", "knowledge")
CONFIDENCES: tuple[str, ...] = ("high", "medium", "low")
CRUD_ACTIONS: tuple[str, ...] = ("NEW", "UPDATE", "DELETE")
VERDICTS: tuple[str, ...] = ("EVOLVE", "CONFLICT", "EXPAND", "NEW")

Outcome = Literal["ok", "parse_error", "provider_error", "offline"]


@dataclass(frozen=True)
class FactTriple:
    """subject –relation→ object, as read from a text (engine/annotations/facts.py stores them)."""

    subject: str
    relation: str
    object: str


@dataclass(frozen=True)
class NoteFields:
    """What note construction adds to a raw text; the default is the blank note."""

    keywords: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    context: str = ""
    category: str = "General"
    note_type: str = "memory"
    topics: list[str] = field(default_factory=list)
    confidence: str = "low"
    # Riding in the same construct call (docs/architecture.md §9): None / () when the model gave none.
    importance: int | None = None
    facts: tuple[FactTriple, ...] = ()
    # Fields the model left empty or answered outside the allowed values (engine/llm/parse.py);
    # the client fills them from the offline rules. Not part of the value itself.
    gaps: frozenset[str] = field(default_factory=frozenset, compare=False, repr=False)


@dataclass(frozen=True)
class Candidate:
    """A note offered to the link judgement: its real id and its text."""

    id: str
    content: str


@dataclass(frozen=True)
class Neighbour:
    """A linked note the evolution step may update."""

    id: str
    content: str
    context: str = ""
    tags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class NeighbourUpdate:
    """New context and/or tags for one neighbour; None means keep as is."""

    id: str
    context: str | None = None
    tags: list[str] | None = None


@dataclass(frozen=True)
class EvolveResult:
    """Evolution outcome; connections are neighbour ids the new note should link to."""

    updates: list[NeighbourUpdate] = field(default_factory=list)
    connections: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CrudOp:
    """One memory operation proposed from a dialogue turn."""

    action: str  # NEW | UPDATE | DELETE (NONE never leaves the LLM layer)
    fact: str
    existing_idx: int | None = None


@dataclass(frozen=True)
class MergeDecision:
    should_merge: bool = False
    merged: str = ""


@dataclass(frozen=True)
class Judgement:
    """Evolution judge verdict; merged_content is set for EVOLVE and EXPAND only."""

    verdict: str = "NEW"
    merged_content: str = ""
    reason: str = ""


@dataclass(frozen=True)
class ConflictFinding:
    """Two batch indices (a < b) that cannot both be true; superseded is a or b or None."""

    a: int
    b: int
    superseded: int | None = None
    reason: str = ""


@dataclass(frozen=True)
class EpisodeSummary:
    """A model's summary of a closed conversation session (engine/layers/episodes.py)."""

    summary: str
    decisions: list[str] = field(default_factory=list)
    open_items: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    mood: str = "neutral"


@dataclass(frozen=True)
class Reflection:
    """A model's reflection; cites are indices into the notes it was shown."""

    text: str
    cites: list[int] = field(default_factory=list)


@dataclass
class LlmCallRecord:
    """One model call (or offline answer); field names match the LlmCall model."""

    role: str
    tier: str
    provider: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int = 0
    outcome: Outcome = "ok"
    error: str = ""
    agent_id: str | None = None
    created_at: datetime | None = None
