"""Request and response schemas of the agent API (surfaces/api/agent.py).

Requests reject unknown fields (there is no ``agent`` field anywhere: the key
decides the agent). Shapes and types are checked here; the rules about content
(quality gate, length limits, label counts) stay in the engine, which raises
the same errors for every caller.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Schema
from ninja.pagination import PaginationBase
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
)

from engine.retrieval.search import MAX_LIMIT as MAX_SEARCH_LIMIT
from engine.retrieval.search import Result
from engine.text import storable
from memories import access
from memories.models import SHARED_AGENT, Note

MAX_MESSAGES = 100
MAX_LIST_OFFSET = 1_000_000_000
MAX_LIST_LIMIT = 100


# Every text field of every request (texts, queries, contexts, labels) is checked here, once, so
# the answer is a 400 naming the field before anything is read or written; the engine refuses the
# same characters (engine/text.py: storable) for every other caller. The rule is what PostgreSQL
# and the tokenizer cannot take: NUL and other control characters, lone surrogates.
def _storable(value: str) -> str:
    if not storable(value):
        raise ValueError("must not contain control characters or lone surrogates")
    return value


def _iso_text(value: object) -> object:
    # pydantic would also take a number as a Unix time; the API promises ISO 8601 only.
    if not isinstance(value, str):
        raise ValueError("must be an ISO 8601 string with a time zone, e.g. 2024-05-01T09:30:00+02:00")
    return value


def _storable_moment(value: dt.datetime) -> dt.datetime:
    # Stored in UTC: 9999-12-31T23:59-05:00 parses but has no UTC equivalent.
    try:
        return value.astimezone(dt.UTC)
    except OverflowError:
        raise ValueError("is out of range once converted to UTC") from None


Text = Annotated[str, AfterValidator(_storable)]
StrictText = Annotated[StrictStr, AfterValidator(_storable)]
Label = Text
Moment = Annotated[AwareDatetime, BeforeValidator(_iso_text), AfterValidator(_storable_moment)]
Scope = Literal["private", "shared"]


class In(Schema):
    # Unknown fields are an error, not silently dropped. Numbers and booleans are strict
    # (no "5" or true for a limit); datetimes are parsed from ISO 8601 and need a zone.
    model_config = ConfigDict(extra="forbid")


class MemoryIn(In):
    text: Text
    scope: Scope = "private"
    subjects: list[Label] = []
    sources: list[Label] = []
    note_type: Literal["memory", "knowledge"] | None = None
    occurred_at: Moment | None = None


class EpisodicIn(In):
    text: Text
    scope: Scope = "private"
    subjects: list[Label] = []
    sources: list[Label] = []
    occurred_at: Moment | None = None
    context: Text = ""


class TurnIn(In):
    text: Text
    session: Label = ""
    source: Label | None = None
    occurred_at: Moment | None = None
    subjects: list[Label] = []


class ConversationIn(In):
    turns: list[TurnIn] = Field(min_length=1)
    scope: Scope = "private"
    link_adjacent: StrictBool = True


class SearchIn(In):
    query: Text
    limit: StrictInt = Field(5, ge=1, le=MAX_SEARCH_LIMIT)
    subject: Label | None = None
    topics_filter: list[Label] | None = None
    explain: StrictBool = False


class PatchIn(In):
    text: Text
    sources: list[Label] = []


class MessageIn(In):
    role: Label = Field(min_length=1, max_length=50)
    content: Text


class TurnsIn(In):
    messages: list[MessageIn] = Field(min_length=1, max_length=MAX_MESSAGES)
    sources: list[Label] = []
    # When the exchange was said: relative dates in its facts are read against it, and added facts dated then.
    occurred_at: Moment | None = None


class WriteQuery(Schema):
    # ?include=cost adds the write's model cost to the answer (docs/api.md).
    include: Literal["cost"] | None = None


class RoleCostOut(Schema):
    calls: int
    tokens_in: int
    tokens_out: int
    latency_ms: int
    outcomes: dict[str, int]


class CostOut(Schema):
    calls: int
    tokens_in: int
    tokens_out: int
    latency_ms: int
    roles: dict[str, RoleCostOut]


class MemoryCreatedOut(Schema):
    id: str
    outcome: Literal["created", "duplicate", "folded", "flagged", "conflict"]
    links: list[str]
    similar_to: str | None
    similarity: float | None
    # Roles the model failed (refused, unreachable, unusable reply), answered by the offline rules.
    fell_back: list[str]
    cost: CostOut | None = None


class IdOut(Schema):
    id: str


class SkippedTurnOut(Schema):
    position: int
    reason: str


class ConversationOut(Schema):
    ids: list[str]
    skipped: list[SkippedTurnOut]


class CountOut(Schema):
    count: int


class NoteFields(BaseModel):
    """The fields every note in an answer carries (docs/api.md): read from the Note by ninja's
    resolvers (NoteFieldsOut), or handed over as a dict where a search answers (HitOut)."""

    id: str
    content: str
    category: str
    note_type: str
    keywords: list[str]
    tags: list[str]
    topics: list[str]
    context: str
    subjects: list[str]
    sources: list[str]
    scope: Scope
    created_at: dt.datetime


class NoteFieldsOut(NoteFields, Schema):
    """A note's fields, read from the Note."""

    @staticmethod
    def resolve_id(note: Note) -> str:
        return str(note.pk)

    @staticmethod
    def resolve_scope(note: Note) -> str:
        return scope_of(note)


def scope_of(note: Note) -> str:
    return "shared" if note.agent_id == SHARED_AGENT else "private"


# A search's answer is plain pydantic models validated from dicts (``search_answer``), not ninja
# Schemas read through resolvers: ninja wraps every object it validates in a getter that resolves
# each field in Python, which cost a loaded web process about 14 % of its CPU a search (py-spy, 16
# clients; docs/benchmarks.md, "Less Python a search"). The JSON is the same.
class SurroundingOut(BaseModel):
    """A turn around a match in its conversation (engine/retrieval/surrounding.py)."""

    id: str
    content: str
    position: Literal["before", "after"]
    distance: int  # turns away from the match (1 = adjacent)
    sources: list[str]
    created_at: dt.datetime


class HitOut(NoteFields):
    """A search result: its note's fields, then how it was found (engine/retrieval/search.py: Result)."""

    via: Literal["match", "link"]
    similarity: float
    score: float
    rrf: float
    relevance: float | None  # None: the embedding model has no fitted weights
    # The turns before and after a match in its conversation, earliest first; [] for a link
    # result or a note outside a conversation.
    surrounding: list[SurroundingOut]
    explain: dict | None = None  # present only when asked


class SearchOut(BaseModel):
    results: list[HitOut]


def search_answer(results: list[Result]) -> dict:
    """What a search answers, as SearchOut validates it: each result's note fields, then how it was found."""
    return {"results": [_hit(result) for result in results]}


def _hit(result: Result) -> dict:
    note = result.note
    return {
        "id": str(note.pk),
        "content": note.content,
        "category": note.category,
        "note_type": note.note_type,
        "keywords": note.keywords,
        "tags": note.tags,
        "topics": note.topics,
        "context": note.context,
        "subjects": note.subjects,
        "sources": note.sources,
        "scope": scope_of(note),
        "created_at": note.created_at,
        "via": result.via,
        "similarity": result.similarity,
        "score": result.score,
        "rrf": result.rrf,
        "relevance": result.relevance,
        "surrounding": [
            {
                "id": str(turn.note.pk),
                "content": turn.note.content,
                "position": turn.position,
                "distance": turn.distance,
                "sources": turn.note.sources,
                "created_at": turn.note.created_at,
            }
            for turn in result.surrounding
        ],
        "explain": result.explain or None,  # empty unless asked: left out of the answer
    }


class NoteOut(NoteFieldsOut):
    links: list[str]
    retrieval_count: int
    is_active: bool
    updated_at: dt.datetime

    @staticmethod
    def resolve_links(note: Note, context: dict) -> list[str]:
        # Only links into notes the asking agent may read: an id it cannot open is not its business.
        agent = context["request"].auth
        targets = note.out_links.order_by("created_at", "pk").values_list("target_id", flat=True)
        return [str(n.pk) for n in access.visible_notes(agent, list(targets))]


class HistoryEventOut(Schema):
    action: str
    actor: str
    at: dt.datetime
    before: str | None = None
    after: str | None = None


class HistoryOut(Schema):
    id: str
    events: list[HistoryEventOut]


class RetiredOut(Schema):
    id: str
    retired: bool
    # Set when the note was erased (?purge=true): the audit record's id and what was removed.
    erased: bool = False
    erasure: int | None = None
    counts: dict[str, int] = Field(default_factory=dict)


class ErasedOut(Schema):
    erasure: int
    scope: str
    counts: dict[str, int]


class OpOut(Schema):
    action: str
    fact: str
    status: Literal["applied", "stored_as_new", "skipped"]
    note_id: str | None
    reason: str
    write_outcome: str


class TurnsOut(Schema):
    ops: list[OpOut]
    considered: list[str]
    fell_back: list[str]
    cost: CostOut | None = None


class ListedNoteOut(NoteFieldsOut):
    retrieval_count: int
    last_accessed: dt.datetime | None
    updated_at: dt.datetime


class NotesPage(PaginationBase):
    """ninja pagination with the API's page shape: ``{results, total, limit, offset}`` (docs/api.md)."""

    class Input(Schema):
        # Query strings are text: "20" is the number 20 here.
        limit: int = Field(20, ge=1, le=MAX_LIST_LIMIT)
        # Bounded so the database never sees a number it cannot hold (SQLite and PostgreSQL stop
        # at 2**63 - 1); no agent has a billion notes.
        offset: int = Field(0, ge=0, le=MAX_LIST_OFFSET)

    class Output(Schema):
        results: list[Any]
        total: int
        limit: int
        offset: int

    items_attribute = "results"

    def paginate_queryset(self, queryset: QuerySet, pagination: Input, request: HttpRequest, **params: Any) -> dict:
        offset, limit = pagination.offset, pagination.limit
        total = self._items_count(queryset)
        return {"results": queryset[offset : offset + limit], "total": total, "limit": limit, "offset": offset}


class FlaggedOut(Schema):
    id: str
    reasons: list[str]


class JobOut(Schema):
    job: str
    outcome: str
    counts: dict[str, int]
    detail: str
    items: list[FlaggedOut] = []  # quality scan: the caller's notes flagged now, with their reasons
