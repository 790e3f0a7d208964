"""Episodes: a closed conversation session becomes one summary note, linked to its turns.

A session closes explicitly (``POST /api/v1/episodes/close``) or when it has been
idle for ``AMEM_EPISODE_IDLE_MINUTES`` (the ``episodes`` job,
engine/maintenance/episode_close.py). LLM mode: one ``episode`` call (fast tier) writes the
summary, decisions, open items, topics and mood. Offline, or when that call fails:
an extractive summary (topics from the offline keyword scorer, decisions and open
items from sentences that say so, a mood from a small word list), a weak stand-in
that says nothing the turns did not say. Turns written to a
session after it closed open a new episode when the session closes again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from engine import runtime
from engine.errors import InvalidInput, NotFound
from engine.index.embeddings import from_bytes
from engine.index.tokenize import words
from engine.llm.offline import OfflineRules
from engine.llm.types import EpisodeSummary
from engine.reading.sentences import sentences
from engine.write.pipeline import EpisodicItem, embed_episodic, store_episodic
from memories.ids import check_session
from memories.models import Agent, Episode, Link, Note, NoteEvent

LINK_REASON = "episode turn"
MAX_SUMMARY_CHARS = 2000
MAX_ITEMS = 4
MAX_RANKED = 2000
_DECISION_RE = re.compile(
    r"\b(decided|decide|agreed|agree|will|going to|plan to|chose|choose|let's|we'll|I'll)\b|决定|同意|打算", re.I
)
_OPEN_RE = re.compile(
    r"\?$|？$|\b(todo|need to|needs to|should|must|remember to|follow up|not yet|pending)\b|待|需要", re.I
)
_POSITIVE = frozenset(
    """
    great good glad happy love thanks thank excited awesome nice perfect wonderful 好 开心 谢谢 喜欢
    """.split()
)
_NEGATIVE = frozenset(
    """
    bad sad angry upset worried annoyed problem sorry tired hate frustrated 难过 生气 担心 烦
    """.split()
)


def open_turns(agent: Agent, session: str) -> list[Note]:
    """The session's turns not yet covered by an episode, oldest first."""
    covered = {
        t
        for ids in Episode.objects.filter(agent_id=agent.pk, session=session).values_list("turn_ids", flat=True)
        for t in ids
    }
    turns = Note.objects.active().filter(owner=agent.pk, session=session, layer="").order_by("created_at", "pk")
    return [n for n in turns if str(n.pk) not in covered]


def idle_sessions(agent: Agent, idle_minutes: int, *, now: dt.datetime | None = None) -> tuple[list[str], int]:
    """Sessions with open turns and no new turn for ``idle_minutes``; and how many are still active."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(minutes=idle_minutes)
    rows = (
        Note.objects.active()
        .filter(owner=agent.pk, layer="")
        .exclude(session="")
        .values("session")
        .annotate(last=Max("updated_at"))
    )
    idle, active = [], 0
    for row in rows:
        if not open_turns(agent, row["session"]):
            continue
        if row["last"] <= cutoff:
            idle.append(row["session"])
        else:
            active += 1
    return sorted(idle), active


def close(agent: Agent, session: str, *, closed_by: str = "explicit", actor: str | None = None) -> Episode:
    """Summarise the session's open turns into an episode note; NotFound when there are none."""
    check_session(session)  # the one rule for sessions (memories/ids.py)
    turns = open_turns(agent, session)
    if not turns:
        raise NotFound("no open turns in this session")
    written = runtime.llm().episode([t.content for t in turns], agent_id=agent.pk)
    text = from_model(session, turns, written) if written is not None else summarise(session, turns)
    subjects = list(dict.fromkeys(s for t in turns for s in (t.subjects or [])))
    ended = max(t.created_at for t in turns)
    item = EpisodicItem(
        text, subjects=subjects[:50], occurred_at=ended, context=f"episode summary of session {session}"
    )
    [note] = embed_episodic(agent, [item])
    note.layer, note.session = "episode", session
    note.importance = max(note.importance or 0, *(t.importance or 0 for t in turns)) or note.importance
    with transaction.atomic():
        store_episodic(agent, [note], actor=actor or agent.pk, path="episode")
        episode = Episode.objects.create(
            agent_id=agent.pk,
            session=session,
            note=note,
            turn_ids=[str(t.pk) for t in turns],
            started_at=min(t.created_at for t in turns),
            ended_at=ended,
            closed_by=closed_by,
        )
        links = [Link(source=note, target=t, created_by=actor or agent.pk, reason=LINK_REASON) for t in turns]
        links += [Link(source=t, target=note, created_by=actor or agent.pk, reason=LINK_REASON) for t in turns]
        Link.objects.bulk_create(links, ignore_conflicts=True)
        NoteEvent.objects.create(
            note=note, action="episode", after={"session": session, "turns": len(turns)}, actor=actor or agent.pk
        )
    return episode


def summarise(session: str, turns: Sequence[Note]) -> str:
    """The extractive summary: topics, decisions, open items, mood (no model)."""
    said = [s for t in turns for s in sentences(t.content)]
    keywords = OfflineRules(lambda texts: runtime.embedder().encode(list(texts)), words).keywords(
        " ".join(t.content for t in turns), 6
    )
    decisions = _pick([s for s in said if _DECISION_RE.search(s)])
    open_items = _pick([s for s in said if _OPEN_RE.search(s) and s not in decisions])
    lines = [
        _header(session, turns),
        f"Topics: {', '.join(keywords) or '-'}.",
        f"Decisions: {' | '.join(decisions) or '-'}",
        f"Open items: {' | '.join(open_items) or '-'}",
        f"Mood: {mood(' '.join(said))}.",
    ]
    text = "\n".join(lines)
    return text if len(text) <= MAX_SUMMARY_CHARS else text[: MAX_SUMMARY_CHARS - 1] + "…"


def _header(session: str, turns: Sequence[Note]) -> str:
    start, end = turns[0].created_at, turns[-1].created_at
    return f"Episode: session {session}, {len(turns)} turns, {start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M}."


def from_model(session: str, turns: Sequence[Note], written: EpisodeSummary) -> str:
    """The model's summary (LLM mode) in the same layout as the extractive one."""
    lines = [
        _header(session, turns),
        written.summary,
        f"Topics: {', '.join(written.topics) or '-'}.",
        f"Decisions: {' | '.join(written.decisions) or '-'}",
        f"Open items: {' | '.join(written.open_items) or '-'}",
        f"Mood: {written.mood}.",
    ]
    text = "\n".join(lines)
    return text if len(text) <= MAX_SUMMARY_CHARS else text[: MAX_SUMMARY_CHARS - 1] + "…"


def _pick(found: list[str]) -> list[str]:
    chosen: list[str] = []
    for sentence in found:
        short = sentence if len(sentence) <= 160 else sentence[:159] + "…"
        if short not in chosen:
            chosen.append(short)
        if len(chosen) == MAX_ITEMS:
            break
    return chosen


def mood(text: str) -> str:
    tokens = [w.lower() for w in words(text)]
    pos = sum(t in _POSITIVE for t in tokens)
    neg = sum(t in _NEGATIVE for t in tokens)
    if pos and neg:
        return "mixed"
    return "positive" if pos else "negative" if neg else "neutral"


def recall(agent: Agent, *, query: str | None = None, limit: int = 5) -> list[Episode]:
    """Episodes by topic (a search over the summary notes) or, without a query, the most recent ``limit``."""
    if not isinstance(limit, int) or not 1 <= limit <= 50:
        raise InvalidInput("limit must be between 1 and 50")
    mine = Episode.objects.filter(agent_id=agent.pk, note__is_active=True).select_related("note")
    if not query or not query.strip():
        return list(mine.order_by("-ended_at", "-pk")[:limit])
    # Episodes are few per agent: rank their summary vectors directly rather than through
    # the index, where the turns they summarise would crowd them out.
    qvec = runtime.embedder().encode_query(query.strip())
    scored = []
    for episode in mine.order_by("-ended_at", "-pk")[:MAX_RANKED]:
        vector = from_bytes(episode.note.embedding)
        if vector is not None and vector.shape == qvec.shape:
            scored.append((float(vector @ qvec), episode))
    scored.sort(key=lambda pair: -pair[0])
    return [episode for _, episode in scored[:limit]]


def latest(agent: Agent) -> Episode | None:
    return Episode.objects.filter(agent_id=agent.pk, note__is_active=True).select_related("note").first()


def as_dict(episode: Episode) -> dict:
    return {
        "id": str(episode.note_id),
        "summary": episode.note.content,
        "session": episode.session,
        "turns": len(episode.turn_ids),
        "started_at": episode.started_at,
        "ended_at": episode.ended_at,
    }
