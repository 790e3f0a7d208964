"""In the server, a search's heat is written by the outbox drainer's next round, not by the search."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone

from engine.index_sync import outbox
from engine.retrieval.heat import bump_heat
from engine.write.pipeline import EpisodicItem, add_episodic_batch
from memories.models import Note


@pytest.fixture
def start_drainer(monkeypatch, store):
    """Starts a drainer in this process, as in the server, that wakes only when kicked. Tests write
    their notes first: a write kicks a running drainer, whose round would race the assertions."""
    started: list[outbox.Drainer] = []

    def start() -> outbox.Drainer:
        running = outbox.Drainer(interval=3600, optimize_every=0)
        monkeypatch.setattr(outbox, "_drainer", running)
        running.start()
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


def _counts(*notes: Note) -> list[int]:
    return [Note.objects.get(pk=n.pk).retrieval_count for n in notes]


def _wait_for(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_search_writes_no_heat_the_drainers_next_round_writes_every_count(transactional_db, alice, start_drainer):
    one, two = add_episodic_batch(
        alice, [EpisodicItem("Anchor and kettle by the door."), EpisodicItem("Violin on Monday.")]
    )
    drainer = start_drainer()
    before = timezone.now()
    bump_heat([one.pk, two.pk], before)
    bump_heat([str(one.pk)], timezone.now())  # ids as strings, as well
    assert _counts(one, two) == [0, 0]  # nothing written on the search's own path
    drainer.kick()
    assert _wait_for(lambda: _counts(one, two) == [2, 1]), _counts(one, two)
    for note in Note.objects.filter(pk__in=[one.pk, two.pk]):
        assert note.last_accessed is not None and note.last_accessed >= before


def test_stopping_the_drainer_writes_what_it_held(transactional_db, alice, start_drainer):
    (note,) = add_episodic_batch(alice, [EpisodicItem("Anchor and kettle by the door.")])
    drainer = start_drainer()
    bump_heat([note.pk], timezone.now())
    drainer.stop()
    assert _counts(note) == [1]


def test_without_a_drainer_the_heat_is_written_at_once(db, alice, store):
    (note,) = add_episodic_batch(alice, [EpisodicItem("Anchor and kettle by the door.")])
    assert not outbox.running()
    bump_heat([note.pk], timezone.now())
    assert _counts(note) == [1]
