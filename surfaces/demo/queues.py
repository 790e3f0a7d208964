"""One example in each review queue for the demo agent, so a newcomer sees what the queues are for.

A change of fact waits in Conflicts, a fact said twice in Pending merges, a vague note in Low
quality. They are written through the engine's episodic path and flagged directly (not by the
curation jobs, whose thresholds may change): each is a card the newcomer can decide and undo.
Each example's notes carry a ``demo example …`` source, so a second bootstrap adds nothing, and
an example once decided stays decided. The review app shows a note's sources to people, so they
read as words (they were ``demo-queue-…`` until 2026-12; a store bootstrapped before gets the
examples once more).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from engine.annotations import pairs
from engine.write.pipeline import add_episodic
from memories.models import Agent, Note, Pair

ACTOR = "bootstrap"
CONFLICT = ("demo example: a fact that changed (the older note)", "demo example: a fact that changed (the newer note)")
MERGE = "demo example: a fact said twice"
VAGUE = "demo example: a vague note"
MARKERS = (*CONFLICT, MERGE, VAGUE)

OLDER_FACT = "Alex lives in Leeds and works at the city library."
NEWER_FACT = "Alex moved to York last month and now works from home."
# Says what the demo memory "Alex drinks oat-milk flat whites and avoids coffee after 3 pm." says.
TWICE = "Alex drinks oat-milk flat whites and never has coffee after 3 pm."
TWICE_OF = "Alex drinks oat-milk flat whites"
VAGUE_TEXT = "Something about the thing we discussed earlier."


def add_examples(agent: Agent, present: set[str]) -> list[str]:
    """Write the examples not yet in ``present`` (the sources the agent's notes hold); their names."""
    made: list[str] = []
    if not present & set(CONFLICT):
        _change_of_fact(agent)
        made.append("a change of fact (Conflicts)")
    if MERGE not in present and _fact_said_twice(agent):
        made.append("a fact said twice (Pending merges)")
    if VAGUE not in present:
        note = add_episodic(VAGUE_TEXT, agent, sources=[VAGUE], actor=ACTOR)
        Note.objects.filter(pk=note.pk).update(low_quality=True, low_quality_reasons=["vague"])
        made.append("a vague note (Low quality)")
    return made


def _change_of_fact(agent: Agent) -> None:
    month_ago = timezone.now() - timedelta(days=40)
    older = add_episodic(
        OLDER_FACT, agent, subjects=["alex"], sources=[CONFLICT[0]], occurred_at=month_ago, actor=ACTOR
    )
    newer = add_episodic(NEWER_FACT, agent, subjects=["alex"], sources=[CONFLICT[1]], actor=ACTOR)
    with transaction.atomic():
        reason = "may have changed: “lives in Leeds” → “moved to York” (an example the demo set up)"
        pairs.open_pair(
            older,
            newer,
            kind=Pair.CONFLICT,
            actor=ACTOR,
            reason=reason,
            guess="change",
            likelihood=0.8,
            opened_by="rules",
        )


def _fact_said_twice(agent: Agent) -> bool:
    existing = (
        Note.objects.active().filter(agent_id=agent.pk, content__startswith=TWICE_OF).order_by("created_at").first()
    )
    if existing is None:
        return False  # the demo memory it repeats is gone: no example rather than a made-up pair
    note = add_episodic(TWICE, agent, subjects=existing.subjects, sources=[MERGE], actor=ACTOR)
    with transaction.atomic():
        pairs.open_pair(
            existing,
            note,
            kind=Pair.MERGE,
            actor=ACTOR,
            guess="same",
            reason="the same fact said twice: “avoids coffee” / “never has coffee” (an example the demo set up)",
            opened_by="rules",
        )
    return True
