"""The benchmark's ingest switch: LoCoMo turns go through the product's conversation path."""

from __future__ import annotations

import datetime as dt

import pytest

from bench.evaluate import IngestOptions, Memory, ingest
from memories.models import Agent, Link, Note

pytestmark = pytest.mark.django_db

WHEN = dt.datetime(2023, 5, 8, tzinfo=dt.UTC)


def turns() -> list[Memory]:
    return [
        Memory("D1:1", 'Caroline said, "I went to a support group yesterday."', WHEN, 1),
        Memory("D1:2", 'Melanie said, "How did the support group go for you?"', WHEN, 1),
        Memory("D2:1", 'Melanie said, "I painted a lake sunrise last week."', WHEN, 2),
    ]


def contexts(agent: Agent) -> dict[str, str]:
    return {n.sources[0]: n.context for n in Note.objects.filter(agent_id=agent.pk)}


def test_the_default_path_is_the_conversation_one(store):
    agent = Agent.objects.create(id="bench-conv", collection="bench-conv")
    ingest(agent, turns(), IngestOptions())
    assert contexts(agent) == {"D1:1": "", "D1:2": turns()[0].text, "D2:1": ""}
    assert Link.objects.count() == 2  # D1:1 ⇄ D1:2; the next session is not linked


def test_the_episodic_path_stores_each_memory_alone(store):
    agent = Agent.objects.create(id="bench-epi", collection="bench-epi")
    ingest(agent, turns(), IngestOptions(path="episodic", date_in_text=True))
    assert set(contexts(agent).values()) == {""}
    assert not Link.objects.exists()
    assert Note.objects.get(sources=["D1:1"]).content.startswith("[8 May 2023] Caroline")
