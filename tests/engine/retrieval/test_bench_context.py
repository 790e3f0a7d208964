"""The benchmark's context options: neighbouring turns of the same session, never across sessions."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.bench_eval import IngestOptions, Memory, ingest
from memories.models import Agent, Note

pytestmark = pytest.mark.django_db

WHEN = dt.datetime(2023, 5, 8, tzinfo=dt.UTC)


def turns() -> list[Memory]:
    return [
        Memory("D1:1", "Caroline said, \"I went to a support group yesterday.\"", WHEN, 1),
        Memory("D1:2", "Melanie said, \"How did the support group go for you?\"", WHEN, 1),
        Memory("D1:3", "Caroline said, \"It was powerful, I felt accepted there.\"", WHEN, 1),
        Memory("D2:1", "Melanie said, \"I painted a lake sunrise last week.\"", WHEN, 2),
    ]


def contexts(agent: Agent) -> dict[str, str]:
    return {n.sources[0]: n.context for n in Note.objects.filter(agent_id=agent.pk)}


def test_previous_turn_becomes_the_context_and_the_note_is_re_embedded():
    agent = Agent.objects.create(id="bench-prev", collection="bench-prev")
    ingest(agent, turns(), IngestOptions(context_prev=True))
    got = contexts(agent)
    assert got["D1:1"] == "" and got["D2:1"] == ""  # first turn of each session: nothing before it
    assert got["D1:2"] == turns()[0].text
    notes = Note.objects.filter(agent_id=agent.pk)
    assert all(n.content.startswith(("Caroline", "Melanie")) for n in notes)  # content stays the turn
    assert not notes.filter(index_dirty=True).exists()


def test_a_window_takes_turns_on_both_sides_within_the_session():
    agent = Agent.objects.create(id="bench-window", collection="bench-window")
    ingest(agent, turns(), IngestOptions(context_window=1))
    got = contexts(agent)
    t = turns()
    assert got["D1:2"] == f"{t[0].text} {t[2].text}"
    assert got["D1:3"] == t[1].text  # D2:1 is another session
    assert got["D2:1"] == ""
