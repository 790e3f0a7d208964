"""Reflection: a periodic note per agent about what recurs, what changed and what is still open.

Each reflection covers the agent's notes written since its previous reflection
(at least MIN_NOTES of them, else nothing is written) and cites, by link and in
its history entry, only notes that exist and belong to the agent. In LLM mode a
model writes it; offline it is built by rules: recurring keywords across notes,
facts closed by newer ones (preference and state changes), open items and
unanswered questions, and its text says it is the weak stand-in (docs/memory-layers.md).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable

from django.db import transaction

from engine import runtime
from engine.index.tokenize import words
from engine.layers.episodes import _OPEN_RE
from engine.llm.offline import OfflineRules
from engine.llm.types import Reflection
from engine.reading.sentences import sentences
from engine.write.pipeline import EpisodicItem, embed_episodic, store_episodic
from memories.models import Agent, Fact, Link, Note, NoteEvent

MIN_NOTES = 3
MAX_NOTES = 300
MAX_TOPICS = 5
MAX_LOOPS = 3
MAX_MODEL_NOTES = 40
LINK_REASON = "reflection cites"
STAND_IN = "offline stand-in: built by rules, no model; weak"


def _window(agent: Agent) -> tuple[list[Note], dt.datetime | None]:
    last = Note.objects.active().filter(owner=agent.pk, layer="reflection").order_by("-created_at").first()
    since = last.created_at if last else None
    notes = Note.objects.active().filter(owner=agent.pk).exclude(layer="reflection")
    if since is not None:
        notes = notes.filter(created_at__gt=since)
    return list(notes.order_by("-created_at", "-pk")[:MAX_NOTES]), since


Ask = Callable[[Callable[[], Reflection | None]], Reflection | None]


def _direct(call: Callable[[], Reflection | None]) -> Reflection | None:
    return call()


def reflect(agent: Agent, *, actor: str = "amem:reflection", ask: Ask = _direct) -> Note | None:
    """Write one reflection note citing the notes it drew on; None when there is too little new.

    LLM mode: one ``reflect`` call (strong tier) over the newest notes, citing them by
    number (only numbers it was shown survive parsing). Offline, when the call fails or
    cites nothing: the rules below, labelled as the weak stand-in. ``ask`` lets the
    maintenance step route the call through its idle gate and accounting.
    """
    notes, since = _window(agent)
    if len(notes) < MIN_NOTES:
        return None
    shown = notes[:MAX_MODEL_NOTES]
    written = ask(lambda: runtime.llm().reflect([n.content for n in shown], agent_id=agent.pk))
    if written is not None and written.cites:
        start = min(n.created_at for n in notes)
        text = f"Reflection over {len(notes)} notes since {start:%Y-%m-%d}.\n{written.text}"
        return _write(agent, text, [str(shown[i].pk) for i in written.cites], actor)
    return _by_rules(agent, notes, since, actor)


def _by_rules(agent: Agent, notes: list[Note], since: dt.datetime | None, actor: str) -> Note | None:
    cited: list[str] = []

    def cite(ids) -> None:
        for i in ids:
            if i not in cited:
                cited.append(i)

    rules = OfflineRules(lambda texts: runtime.embedder().encode(list(texts)), words)
    holders: dict[str, list[str]] = defaultdict(list)
    for note in notes:
        for keyword in note.keywords or rules.keywords(note.content, 5):
            holders[keyword.lower()].append(str(note.pk))
    recurring = sorted(((k, ids) for k, ids in holders.items() if len(ids) >= 2), key=lambda kv: (-len(kv[1]), kv[0]))
    topic_lines = []
    for keyword, ids in recurring[:MAX_TOPICS]:
        topic_lines.append(f"{keyword} ({len(ids)} notes)")
        cite(ids[:5])

    known = {str(n.pk) for n in notes}
    changes = []
    closed = Fact.objects.filter(agent_id=agent.pk, invalid_at__isnull=False, superseded_by__isnull=False)
    if since is not None:
        closed = closed.filter(invalid_at__gt=since)
    for fact in closed.select_related("superseded_by").order_by("invalid_at")[:5]:
        newer = fact.superseded_by
        if newer is None:
            continue
        changes.append(f"{fact.subject} {fact.relation}: {fact.object} → {newer.object}")
        cite([s for s in [*fact.sources, *newer.sources] if s in known])

    loops: list[str] = []
    for note in notes:
        for sentence in sentences(note.content):
            if _OPEN_RE.search(sentence) and len(loops) < MAX_LOOPS:
                loops.append(sentence if len(sentence) <= 160 else sentence[:159] + "…")
                cite([str(note.pk)])

    if not cited:
        return None
    start = min(n.created_at for n in notes)
    text = "\n".join(
        [
            f"Reflection ({STAND_IN}) over {len(notes)} notes since {start:%Y-%m-%d}.",
            f"Recurring topics: {', '.join(topic_lines) or '-'}.",
            f"Changes: {'; '.join(changes) or '-'}.",
            f"Open loops: {' | '.join(loops) or '-'}",
        ]
    )
    return _write(agent, text, cited, actor)


def _write(agent: Agent, text: str, cited: list[str], actor: str) -> Note | None:
    # Only notes that exist, are active and are this agent's own: re-read, never trusted.
    existing = {
        str(pk) for pk in Note.objects.active().filter(pk__in=cited, owner=agent.pk).values_list("pk", flat=True)
    }
    cited = [c for c in cited if c in existing]
    if not cited:
        return None
    [note] = embed_episodic(agent, [EpisodicItem(text, context="reflection")])
    note.layer = "reflection"
    with transaction.atomic():
        store_episodic(agent, [note], actor=actor, path="reflection")
        Link.objects.bulk_create(
            [Link(source=note, target_id=c, created_by=actor, reason=LINK_REASON) for c in cited], ignore_conflicts=True
        )
        NoteEvent.objects.create(note=note, action="reflection", after={"cites": cited}, actor=actor)
    return note


def cited_by(note: Note) -> list[str]:
    return [str(t) for t in Link.objects.filter(source=note, reason=LINK_REASON).values_list("target_id", flat=True)]


__all__ = ["cited_by", "reflect"]
