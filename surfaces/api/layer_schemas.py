"""Request and response schemas of the memory-layer routes (surfaces/api/layers.py)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import BeforeValidator, Field, StrictInt

from surfaces.api.schemas import In, Label, Moment, StrictText, Text


def _or(default: int) -> BeforeValidator:
    # An explicit null means "the default", as leaving the field out does (clients build bodies
    # from optional arguments: {"token_budget": null} is not a mistake worth a 400).
    return BeforeValidator(lambda value: default if value is None else value)


DEFAULT_BUDGET = 1200


class RecallIn(In):
    query: Text
    token_budget: Annotated[StrictInt, _or(DEFAULT_BUDGET)] = Field(DEFAULT_BUDGET, ge=64, le=32_000)
    subject: Label | None = None
    # None (or left out): as many notes as the budget holds.
    limit: StrictInt | None = Field(None, ge=1, le=50)
    # The caller's own framing around ``text`` (tags, a heading): counted against token_budget.
    wrapper: str = Field("", max_length=1000)
    # Notes less likely than this to bear on the query are left out; None: the product's floor.
    min_relevance: float | None = Field(None, ge=0, le=1)


class CoreOut(Schema):
    name: str
    subject: str
    value: Any


class RecallTurnOut(Schema):
    id: str
    content: str
    position: Literal["before", "after"]


class RecallNoteOut(Schema):
    id: str
    content: str
    similarity: float  # the dense cosine
    score: float  # the fused score the search ranked by (0-1): the list is most relevant first
    relevance: float | None  # how likely the note bears on the query (0-1): what min_relevance compares
    created_at: dt.datetime
    # The turns around the note that the bundle's text carries with it, earliest first.
    surrounding: list[RecallTurnOut]


class RecallFactOut(Schema):
    id: int
    subject: str
    relation: str
    object: str
    valid_from: dt.datetime | None
    invalid_at: dt.datetime | None


class FactOut(RecallFactOut):
    sources: list[str]
    origin: str


class RecallEpisodeOut(Schema):
    id: str
    summary: str
    session: str
    ended_at: dt.datetime


class RecallOut(Schema):
    text: str
    tokens: int
    token_budget: int
    tokenizer: str
    core: list[CoreOut]
    notes: list[RecallNoteOut]
    facts: list[RecallFactOut]
    episode: RecallEpisodeOut | None


class BlockOut(Schema):
    name: str
    subject: str
    value: Any
    size: int
    limit: int
    updated_at: dt.datetime


class BlocksOut(Schema):
    blocks: list[BlockOut]


class CoreEditIn(In):
    path: StrictText = ""
    value: Any
    subject: Label = ""


class FactIn(In):
    subject: StrictText
    relation: StrictText
    object: StrictText
    valid_from: Moment | None = None
    sources: list[Label] = []


class FactQuery(Schema):
    entity: Text
    depth: int = Field(1, ge=1, le=3)
    as_of: dt.datetime | None = None


class FactsOut(Schema):
    facts: list[FactOut]


class EpisodeCloseIn(In):
    session: Label = Field(min_length=1, max_length=200)


class EpisodeClosedOut(Schema):
    id: str
    summary: str
    session: str
    turns: int


class EpisodeOut(EpisodeClosedOut):
    started_at: dt.datetime
    ended_at: dt.datetime


class EpisodesOut(Schema):
    episodes: list[EpisodeOut]


class ReflectOut(Schema):
    outcome: Literal["written", "nothing_new"]
    id: str | None = None
    text: str | None = None
    cites: list[str] = []
