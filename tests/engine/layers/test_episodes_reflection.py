"""Episodes (explicit and idle close, recall) and reflection (cites existing notes only)."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from engine.layers import episodes, reflection
from engine.maintenance import runner
from memories.models import Episode, Link, Note, NoteEvent

TURNS = [
    {"text": "Let's plan the trip to Porto for the conference.", "session": "s1"},
    {"text": "We decided to take the train on Friday morning.", "session": "s1"},
    {"text": "Need to book the hotel near the venue before Monday.", "session": "s1"},
    {"text": "Great, thanks, I'm excited about the Porto trip!", "session": "s1"},
]


def test_explicit_close_writes_a_summary_linked_to_its_turns(as_alice, store):
    ids = as_alice.post("/conversations", {"turns": TURNS}).json()["ids"]
    r = as_alice.post("/episodes/close", {"session": "s1"})
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["turns"] == 4 and body["session"] == "s1"
    summary = body["summary"]
    assert "Decisions: " in summary and "train" in summary
    assert "Open items: " in summary and "hotel" in summary
    assert "Mood: positive" in summary and "porto" in summary.lower()
    note = Note.objects.get(pk=body["id"])
    assert note.layer == "episode"
    assert {str(t) for t in Link.objects.filter(source=note).values_list("target_id", flat=True)} == set(ids)
    # Closed: nothing left to close until new turns arrive.
    assert as_alice.post("/episodes/close", {"session": "s1"}).status_code == 404
    as_alice.post("/conversations", {"turns": [{"text": "Also remember to pack the charger.", "session": "s1"}]})
    assert as_alice.post("/episodes/close", {"session": "s1"}).json()["turns"] == 1


def test_episode_recall_by_topic_and_most_recent(as_alice, store):
    as_alice.post("/conversations", {"turns": TURNS})
    as_alice.post("/episodes/close", {"session": "s1"})
    other = [{"text": "The database migration to PostgreSQL failed on the index step.", "session": "s2"}]
    as_alice.post("/conversations", {"turns": other})
    as_alice.post("/episodes/close", {"session": "s2"})
    recent = as_alice.get("/episodes?limit=1").json()["episodes"]
    assert [e["session"] for e in recent] == ["s2"]
    by_topic = as_alice.get("/episodes?query=train%20trip%20to%20Porto&limit=1").json()["episodes"]
    assert [e["session"] for e in by_topic] == ["s1"]


def test_the_idle_job_closes_only_idle_sessions(as_alice, alice, store, settings):
    as_alice.post("/conversations", {"turns": TURNS})
    as_alice.post("/conversations", {"turns": [{"text": "Still talking about the garden plans.", "session": "live"}]})
    long_ago = timezone.now() - dt.timedelta(hours=2)
    Note.objects.filter(session="s1").update(updated_at=long_ago)
    row = runner.run_step("episode_close", alice)
    assert row.counts["episodes_closed"] == 1 and row.outcome == "partial"  # "live" keeps the agent due
    episode = Episode.objects.get()
    assert (episode.session, episode.closed_by, len(episode.turn_ids)) == ("s1", "idle", 4)
    assert runner.due_agents("episode_close") == [alice]


def test_another_agents_episodes_are_invisible(as_alice, as_bob, store):
    as_alice.post("/conversations", {"turns": TURNS})
    assert as_bob.post("/episodes/close", {"session": "s1"}).status_code == 404
    as_alice.post("/episodes/close", {"session": "s1"})
    assert as_bob.get("/episodes").json() == {"episodes": []}
    assert as_bob.get("/episodes?query=Porto").json() == {"episodes": []}


def test_reflection_cites_only_existing_notes_of_the_agent(as_alice, as_bob, alice, store):
    for text in (
        "Alex drinks green tea every morning.",
        "Alex bought a new green tea from Kyoto.",
        "Should we order more green tea for the office?",
        "The office plants need water twice a week.",
    ):
        as_alice.post("/memories", {"text": text})
    as_bob.post("/memories", {"text": "Bob also drinks green tea every morning."})
    retired = Note.objects.filter(owner="alice").first()
    retired.is_active = False
    retired.save()
    note = reflection.reflect(alice)
    assert note is not None and reflection.STAND_IN in note.content
    cited = reflection.cited_by(note)
    assert cited
    assert set(cited) <= {
        str(pk) for pk in Note.objects.filter(owner="alice", is_active=True).values_list("pk", flat=True)
    }
    assert str(retired.pk) not in cited
    assert NoteEvent.objects.get(note=note, action="reflection").after["cites"] == cited
    assert "tea" in note.content.lower()
    # Nothing new since: no second reflection.
    assert reflection.reflect(alice) is None


def test_reflection_job_runs_through_the_runner(as_alice, alice, store):
    for text in (
        "Alex likes jazz and plays the saxophone on weekends.",
        "The jazz festival in Porto sold out within an hour.",
        "Should we buy jazz records for the office party?",
    ):
        as_alice.post("/memories", {"text": text})
    row = runner.run_step("reflection", alice)
    assert row.outcome == "ok" and row.counts["reflections"] == 1
    assert episodes.latest(alice) is None
