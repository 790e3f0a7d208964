"""Reads only read: a search queries the index as it is; dirty notes are the drainer's."""

from __future__ import annotations

import time

from engine.index_sync import outbox
from engine.retrieval.search import search
from engine.text import content_hash
from memories.access import collection_for
from memories.models import Note
from tests.engine.retrieval.conftest import QUERY, put


def _dirty_notes(agent, n: int) -> None:
    Note.objects.bulk_create(
        [
            Note(
                content=f"backlog note {i} about the deploy",
                content_hash=content_hash(f"backlog note {i} about the deploy"),
                agent_id=agent.pk,
                owner=agent.pk,
                readers=[agent.pk],
                writers=[agent.pk],
                index_dirty=True,
            )
            for i in range(n)
        ],
        batch_size=1000,
    )


def test_a_search_with_10000_dirty_notes_does_not_index_them(alice, store):
    indexed = put(alice, "the deploy runs at noon", QUERY)
    _dirty_notes(alice, 10_000)
    started = time.perf_counter()
    results = search("deploy", alice, query_vector=QUERY, heat=False)
    elapsed = time.perf_counter() - started
    print(f"search with 10,000 dirty notes: {elapsed * 1000:.0f} ms")
    assert [r.note.pk for r in results] == [indexed.pk]
    assert Note.objects.filter(index_dirty=True).count() == 10_000
    # Indexing them would take minutes (embedding each); the time is printed, not asserted: a loaded
    # machine makes any read slower, while the two counts above fail whenever a search indexes.
    assert store.count(collection_for(alice)) == 1


def test_a_drain_round_is_bounded(alice, store):
    _dirty_notes(alice, 30)
    assert outbox.drain(limit=10).indexed == 10
    assert Note.objects.filter(index_dirty=True).count() == 20


def test_a_kick_wakes_the_drainer_thread_which_empties_the_outbox(alice, store, transactional_db):
    _dirty_notes(alice, 5)
    drainer = outbox.Drainer(interval=3600)
    drainer.start()
    try:
        drainer.kick()
        deadline = time.monotonic() + 30
        while Note.objects.filter(index_dirty=True).exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        drainer.stop()
    assert not Note.objects.filter(index_dirty=True).exists()
    assert store.count(collection_for(alice)) == 5
