"""The outbox: a committed note is never lost, whatever happens to the index."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from engine.errors import IndexUnavailable
from engine.index_sync import indexer
from engine.retrieval.search import search
from engine.write.pipeline import add_episodic
from memories.models import Note

ROOT = Path(__file__).resolve().parents[3]


def test_a_commit_syncs_the_note_to_the_index(alice, store, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        n = add_episodic("Synced straight after the commit.", alice)
    n.refresh_from_db()
    assert not n.index_dirty and n.indexed_at is not None
    assert store.count("amem_notes") == 1


def test_an_index_failure_after_commit_leaves_the_note_dirty_then_heals(
    alice, store, monkeypatch, django_capture_on_commit_callbacks
):
    def broken(*args, **kwargs):
        raise IndexUnavailable("qdrant went away")

    monkeypatch.setattr(store, "upsert", broken)
    with django_capture_on_commit_callbacks(execute=True):
        n = add_episodic("Written while the index was down.", alice)
    n.refresh_from_db()
    assert n.index_dirty  # committed, not lost, waiting
    assert Note.objects.filter(content="Written while the index was down.").exists()

    monkeypatch.undo()
    assert indexer.sync_dirty().indexed == 1
    n.refresh_from_db()
    assert not n.index_dirty
    assert search("Written while the index was down.", alice)[0].note == n


def test_a_change_during_sync_keeps_the_note_dirty(alice, store):
    n = add_episodic("Revision one of this sentence.", alice)
    stale = Note.objects.get(pk=n.pk)
    Note.objects.filter(pk=n.pk).mark_dirty()  # someone changes it after the indexer read it
    indexer.apply([stale])
    n.refresh_from_db()
    assert n.index_dirty, "the indexer must not clear a mark set after its read"
    indexer.sync_dirty()
    n.refresh_from_db()
    assert not n.index_dirty


def test_a_late_round_with_an_older_revision_sends_the_note_back_to_the_outbox(alice, store):
    n = add_episodic("The boat is moored at pier seven.", alice)
    indexer.sync_dirty()
    stale = Note.objects.get(pk=n.pk)  # a drainer round reads the note …
    # … meanwhile a request changes it and indexes its own new revision, clearing the mark
    n.content = "The boat is moored at the harbour wall."
    n.embedding = None
    n.mark_dirty()
    n.save()
    indexer.sync_notes([n.pk])
    n.refresh_from_db()
    assert not n.index_dirty
    indexer.apply([stale])  # the late round writes the older text over the new one
    n.refresh_from_db()
    assert n.index_dirty, "the index holds an older revision than the row: it must be written again"
    indexer.sync_dirty()
    n.refresh_from_db()
    assert not n.index_dirty
    assert search("harbour wall", alice)[0].note == n


def test_a_search_leaves_dirty_notes_to_the_drainer(alice, store, drain, django_capture_on_commit_callbacks):
    add_episodic("Indexed by the drainer, not by a read.", alice)  # its after-commit hook never runs here
    assert Note.objects.dirty().count() == 1
    assert search("indexed by the drainer", alice) == []
    assert Note.objects.dirty().count() == 1
    drain()
    assert search("indexed by the drainer", alice)[0].note.content == "Indexed by the drainer, not by a read."
    assert Note.objects.dirty().count() == 0


def test_reindex_is_idempotent_and_removes_stale_entries(alice, bob, store):
    add_episodic("Alice's first indexed memory of many.", alice)
    add_episodic("Bob's only indexed memory in the store.", bob)
    indexer.sync_dirty()
    ghost = indexer.point_for(Note.objects.first())
    ghost.id = "00000000-0000-0000-0000-000000000001"  # an index entry with no note behind it
    store.upsert("amem_notes", [ghost])
    assert store.count("amem_notes") == 3

    call_command("amem_reindex", "--no-progress")
    call_command("amem_reindex", "--no-progress")
    assert sorted(store.ids("amem_notes")) == sorted(str(pk) for pk in Note.objects.values_list("pk", flat=True))
    assert Note.objects.dirty().count() == 0


def test_reindex_reads_and_marks_a_store_in_bounded_queries(alice, store, monkeypatch):
    """At 328,000 notes a rebuild failed on SQLite ("too many SQL variables"): it marked the notes
    by a list of every id and looked up every indexed id in one query. Now the mark is one UPDATE
    by condition, and ids are looked up in chunks (here of 2, so 5 notes take 3 queries)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from surfaces.management.commands import amem_reindex

    for i in range(5):
        add_episodic(f"Memory number {i} of a store that grew large.", alice)
    indexer.sync_dirty()
    ghost = indexer.point_for(Note.objects.first())
    ghost.id = "00000000-0000-0000-0000-000000000002"
    store.upsert("amem_notes", [ghost])
    monkeypatch.setattr(amem_reindex, "ID_CHUNK", 2)
    with CaptureQueriesContext(connection) as queries:
        call_command("amem_reindex", "--no-progress")
    marks = [q["sql"] for q in queries if q["sql"].startswith("UPDATE") and "revision" in q["sql"]]
    assert marks and all(" IN (" not in sql for sql in marks)
    lookups = [
        q["sql"] for q in queries if q["sql"].startswith("SELECT") and '"agent_id"' in q["sql"] and " IN (" in q["sql"]
    ]
    assert len(lookups) >= 3
    assert sorted(store.ids("amem_notes")) == sorted(str(pk) for pk in Note.objects.values_list("pk", flat=True))


def test_reindex_of_one_agent_and_of_dirty_notes_only(alice, bob, store, capsys, django_capture_on_commit_callbacks):
    # The after-commit hooks do not run (captured, never executed): the notes stay dirty.
    add_episodic("Alice has one memory waiting.", alice)
    add_episodic("Bob has one memory waiting too.", bob)
    call_command("amem_reindex", "--agent", "alice", "--no-progress")
    assert "indexed 1 notes" in capsys.readouterr().out
    assert Note.objects.dirty().get().owner == "bob"
    call_command("amem_reindex", "--dirty", "--no-progress")
    assert "indexed 1 notes" in capsys.readouterr().out
    assert store.count("amem_notes") == 2


def _manage(env: dict, *args: str, script: str | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "manage.py", *args] if script is None else [sys.executable, "-c", script]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)


@pytest.mark.slow
def test_a_process_that_dies_after_the_commit_loses_nothing(tmp_path):
    env = {
        **os.environ,
        "AMEM_DATA_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "amem_site.settings",
    }
    assert _manage(env, "migrate", "-v0").returncode == 0
    assert _manage(env, "amem_agent", "create", "crashy").returncode == 0
    # Commit the note, then die hard exactly where the index sync would run.
    die = (
        "import django, os; django.setup()\n"
        "from engine.index_sync import indexer\n"
        "indexer.sync_notes = lambda ids: os._exit(9)\n"
        "from engine.write.pipeline import add_episodic\n"
        "add_episodic('The process died right after this commit.', 'crashy')\n"
    )
    assert _manage(env, script=die).returncode == 9
    # Still dirty, never lost: the serving process's drainer (here by hand) indexes it.
    assert _manage(env, "amem_reindex", "--dirty", "--no-progress").returncode == 0
    healed = _manage(env, "amem_search", "--agent", "crashy", "died right after this commit")
    assert healed.returncode == 0, healed.stderr
    assert "The process died right after this commit." in healed.stdout


def test_a_sync_asks_for_each_batch_with_a_query_that_does_not_grow(alice, store, monkeypatch):
    """A rebuild ran at 110–155 notes a second: each batch's query excluded every note seen so far,
    at 90,000 seen 1.2 s a batch. Now it starts after the last batch's note, so every batch's
    query carries as many values as the second one, and every note is still indexed once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for i in range(7):
        add_episodic(f"Memory number {i} written before the rebuild.", alice)
    Note.objects.all().mark_dirty()
    monkeypatch.setattr(indexer, "BATCH", 2)
    with CaptureQueriesContext(connection) as queries:
        result = indexer.sync_dirty()
    assert result.indexed == 7
    assert Note.objects.dirty().count() == 0
    batches = [q["sql"] for q in queries if q["sql"].startswith("SELECT") and q["sql"].endswith("LIMIT 2")]
    assert len(batches) == 5  # four of 2, 2, 2, 1 notes, and the empty one that ends the loop
    assert len({len(sql) for sql in batches[1:]}) == 1, "a later batch's query grew"
