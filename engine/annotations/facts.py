"""Facts with validity: subject –relation→ object triples, closed (never deleted) when contradicted.

A fact is current while ``invalid_at`` is empty. A new fact for a *single-valued*
relation (one object at a time: lives_in, works_at, is_age …) with the same
subject and a different object closes the current one: ``invalid_at`` = the new
fact's ``valid_from`` and ``superseded_by`` = the new fact. Other relations (likes,
knows …) hold many objects at once and never close each other. ``as_of`` asks what
was true at a moment: valid_from ≤ t < invalid_at.

Facts come from the construct call in LLM mode (no extra call) or, offline, from
``extract_patterns``: a handful of conservative English patterns that miss most
facts and are documented as weak (docs/memory-layers.md). The episodic path (events,
conversation turns) has no model, so its notes go through the patterns only.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Iterable, Sequence

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from engine import locking
from engine.errors import InvalidInput
from engine.llm.types import FactTriple
from engine.reading.statements import split_speaker
from engine.text import storable
from memories import access
from memories.models import Agent, Fact, Note

SINGLE_VALUED = frozenset(
    {
        "lives_in",
        "works_at",
        "works_as",
        "is_age",
        "age",
        "married_to",
        "job_title",
        "employer",
        "located_in",
        "based_in",
        "has_role",
        "status",
        "birthday",
        "nationality",
    }
)
MAX_ENTITY_CHARS = 200
MAX_DEPTH = 3
MAX_FACTS_PER_QUERY = 500
_RELATION_CLEAN = re.compile(r"[^a-z0-9_]+")


Triple = FactTriple


def normalise_relation(relation: str) -> str:
    """snake_case, lower-case ASCII: "Lives in" → lives_in."""
    cleaned = _RELATION_CLEAN.sub("_", (relation or "").strip().lower().replace(" ", "_")).strip("_")
    return cleaned[:64]


def _entity(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    cleaned = " ".join(value.split())
    if not cleaned or len(cleaned) > MAX_ENTITY_CHARS or not storable(cleaned):
        raise InvalidInput(f"{name} must be 1–{MAX_ENTITY_CHARS} printable characters")
    return cleaned


def check_triple(subject: object, relation: object, obj: object) -> Triple:
    """A checked triple from untrusted values (a request, an import); InvalidInput names the bad one."""
    rel = normalise_relation(relation) if isinstance(relation, str) else ""
    if not rel:
        raise InvalidInput("relation must hold letters or digits, e.g. lives_in")
    return Triple(_entity(subject, "subject"), rel, _entity(obj, "object"))


def add_fact(
    agent: Agent,
    subject: str,
    relation: str,
    obj: str,
    *,
    valid_from: dt.datetime | None = None,
    sources: Sequence[str] = (),
    origin: str = "manual",
) -> Fact:
    """Record a fact; an identical current fact is returned (with the new sources added)."""
    triple = check_triple(subject, relation, obj)
    try:
        wanted = list(dict.fromkeys(str(uuid.UUID(str(s))) for s in sources))
    except ValueError:
        raise InvalidInput("sources must be ids of notes this agent can read") from None
    source_ids = [str(n.pk) for n in access.visible_notes(agent, wanted)]
    if len(source_ids) != len(wanted):
        raise InvalidInput("sources must be ids of notes this agent can read")
    return _add_fact(agent, triple, valid_from or timezone.now(), source_ids, origin)


@locking.retry_on_conflict
def _add_fact(agent: Agent, triple: Triple, valid_from: dt.datetime, sources: list[str], origin: str) -> Fact:
    with transaction.atomic():
        _hold(agent, [triple])
        return _record(agent, triple, valid_from, sources, origin)


def _hold(agent: Agent, triples: Iterable[Triple]) -> None:
    """Lock the (agent, subject, relation) keys these triples decide, all at once and in one order.

    The key, not the rows that happen to exist, is what concurrent writers queue on: two
    requests that both find no current fact for "Sam lives_in" cannot both add one.
    """
    locking.hold_keys((agent.pk, t.subject.casefold(), t.relation) for t in triples)


def _record(agent: Agent, triple: Triple, valid_from: dt.datetime, sources: list[str], origin: str) -> Fact:
    """Inside a transaction that holds the triple's key (``_hold``): add it, or return the same current fact."""
    current = list(
        Fact.objects.filter(
            agent_id=agent.pk, subject_key=triple.subject.casefold(), relation=triple.relation, invalid_at__isnull=True
        )
    )
    same = next((f for f in current if f.object_key == triple.object.casefold()), None)
    if same is not None:
        merged = list(dict.fromkeys([*same.sources, *sources]))
        if merged != same.sources:
            same.sources = merged
            same.save(update_fields=["sources"])
        return same
    fact = Fact(
        agent_id=agent.pk,
        subject=triple.subject,
        relation=triple.relation,
        object=triple.object,
        valid_from=valid_from,
        sources=sources,
        origin=origin,
    )
    if triple.relation not in SINGLE_VALUED:
        fact.save()
        return fact
    older = [f for f in current if f.valid_from is None or f.valid_from <= valid_from]
    newer = [(f.valid_from, f) for f in current if f.valid_from is not None and f.valid_from > valid_from]
    if newer:
        # Told late about an earlier state: it was true until the current fact began.
        fact.invalid_at, fact.superseded_by = min(newer, key=lambda pair: pair[0])
    fact.save()
    for old in older:
        old.invalid_at, old.superseded_by = valid_from, fact
        old.save(update_fields=["invalid_at", "superseded_by"])
    return fact


def record_from_note(note: Note, agent: Agent, triples: Iterable[Triple], origin: str) -> list[Fact]:
    """Facts a write extracted from ``note`` (inside the write's transaction); bad triples are skipped."""
    return record_from_notes(agent, [(note, list(triples))], origin)


def record_from_notes(agent: Agent, found: Sequence[tuple[Note, Sequence[Triple]]], origin: str) -> list[Fact]:
    """Facts extracted from several notes (a conversation), inside the write's transaction.

    Every key is locked before the first fact is recorded, so two conversations that
    mention the same people in different orders queue instead of deadlocking.
    """
    checked: list[tuple[Note, Triple]] = []
    for note, triples in found:
        for raw in triples:
            try:
                checked.append((note, check_triple(raw.subject, raw.relation, raw.object)))
            except InvalidInput:
                continue
    _hold(agent, [triple for _, triple in checked])
    return [_record(agent, triple, note.created_at, [str(note.pk)], origin) for note, triple in checked]


def replaced_by(made: Iterable[Fact]) -> list[tuple[Fact, Fact]]:
    """(a fact just recorded, a fact it contradicts): each older fact it closed, and the newer
    fact that closes it when it was told late."""
    found: list[tuple[Fact, Fact]] = []
    for fact in made:
        found += [(fact, old) for old in Fact.objects.filter(superseded_by=fact).order_by("-valid_from", "-pk")]
        if fact.superseded_by is not None:
            found.append((fact, fact.superseded_by))
    return found


def valid_at(as_of: dt.datetime | None) -> Q:
    if as_of is None:
        return Q(invalid_at__isnull=True)
    return (Q(valid_from__isnull=True) | Q(valid_from__lte=as_of)) & (
        Q(invalid_at__isnull=True) | Q(invalid_at__gt=as_of)
    )


def graph_query(agent: Agent, entity: str, *, depth: int = 1, as_of: dt.datetime | None = None) -> list[Fact]:
    """Facts within ``depth`` hops of ``entity`` (either end), true now or at ``as_of``; breadth first."""
    if not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"depth must be 1 to {MAX_DEPTH}")
    if as_of is not None and timezone.is_naive(as_of):
        as_of = timezone.make_aware(as_of, dt.UTC)
    frontier = {_entity(entity, "entity").casefold()}
    seen_entities = set(frontier)
    found: dict[int, Fact] = {}
    for _ in range(depth):
        rows = Fact.objects.filter(
            valid_at(as_of),
            Q(subject_key__in=frontier) | Q(object_key__in=frontier),
            agent_id=agent.pk,
        ).order_by("created_at", "pk")[:MAX_FACTS_PER_QUERY]
        nxt: set[str] = set()
        for fact in rows:
            found.setdefault(fact.pk, fact)
            nxt |= {fact.subject_key, fact.object_key}
        frontier = nxt - seen_entities
        seen_entities |= nxt
        if not frontier:
            break
    return list(found.values())


def facts_of_notes(agent: Agent, note_ids: Sequence[str]) -> list[Fact]:
    """Every fact (current or closed) of ``agent`` read from these notes, oldest first."""
    return facts_of_notes_for(agent.pk, note_ids)


def facts_of_notes_for(agent_id: str, note_ids: Sequence[str]) -> list[Fact]:
    wanted = {str(i) for i in note_ids}
    if not wanted:
        return []
    # Source lists are JSON (no portable containment query): narrow by agent, then check here.
    rows = Fact.objects.filter(agent_id=agent_id).order_by("created_at", "pk")
    return [f for f in rows if wanted & set(f.sources)]


def citing(notes: Iterable[Note]) -> list[Fact]:
    """Facts (current or closed) read from any of ``notes``, each from its owner's facts, oldest
    first: the review app's lists (a note's page, the graph around it)."""
    by_owner: dict[str, list[str]] = {}
    for note in notes:
        by_owner.setdefault(note.owner, []).append(str(note.pk))
    found = [f for owner, ids in by_owner.items() for f in facts_of_notes_for(owner, ids)]
    return sorted(found, key=lambda f: (f.created_at, f.pk))


def mentioned_in(agent: Agent, text: str, *, limit: int = 20) -> list[Fact]:
    """Current facts whose subject or object appears in ``text`` (case-insensitive, whole words)."""
    words = re.findall(r"[\w-]+", text.casefold())
    lowered = " " + " ".join(words) + " "
    rows = Fact.objects.filter(agent_id=agent.pk, invalid_at__isnull=True).order_by("-created_at", "-pk")[:2000]
    hits = [f for f in rows if f" {f.subject_key} " in lowered or f" {f.object_key} " in lowered]
    return hits[:limit]


def as_dict(fact: Fact) -> dict:
    return {
        "id": fact.pk,
        "subject": fact.subject,
        "relation": fact.relation,
        "object": fact.object,
        "valid_from": fact.valid_from,
        "invalid_at": fact.invalid_at,
        "sources": list(fact.sources),
        "origin": fact.origin,
    }


# --- offline extraction: deliberately narrow ------------------------------------------

_NAME = r"(?P<s>I|[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
_PLACE = r"(?P<o>[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2})"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\b{_NAME} (?:now )?(?:live|lives|lived|am living|is living) in {_PLACE}"), "lives_in"),
    (re.compile(rf"\b{_NAME} (?:just )?(?:moved|relocated) to {_PLACE}"), "lives_in"),
    (re.compile(rf"\b{_NAME} (?:now )?(?:work|works|am working|is working) (?:at|for) {_PLACE}"), "works_at"),
    (re.compile(rf"\b{_NAME} (?:joined|started at) {_PLACE}"), "works_at"),
    (re.compile(rf"\b{_NAME} (?:am|is|turned) (?P<o>\d{{1,3}}) years? old\b"), "is_age"),
)


def extract_patterns(text: str, subjects: Sequence[str] = ()) -> list[Triple]:
    """Offline triples: where someone lives or works and how old they are, in plain English, nothing else.

    "I" becomes the note's only subject; else, in a conversation turn ("Caroline: I moved to
    Lisbon"), its speaker; else "user".
    """
    speaker, _ = split_speaker(text)
    me = subjects[0] if len(subjects) == 1 else speaker or "user"
    found: list[Triple] = []
    for pattern, relation in _PATTERNS:
        for match in pattern.finditer(text):
            subject = me if match.group("s") == "I" else match.group("s")
            triple = Triple(subject, relation, match.group("o"))
            if triple not in found:
                found.append(triple)
    return found[:3]
