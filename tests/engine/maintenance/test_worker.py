"""Every job runs as the django-q2 worker does: from the database, never opening the index."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from engine import runtime
from engine.errors import IndexUnavailable
from engine.index import store
from engine.maintenance import runner, tasks
from memories.models import JobRun, Note, Pair
from tests.engine.maintenance.conftest import axis, near, put, wrote

FIELDS = {"keywords": ["merged"], "tags": ["memory"], "context": "A merged note.", "category": "General"}


@pytest.fixture
def no_index(monkeypatch):
    """Opening any index backend fails loudly, whatever code path tries."""

    def refuse(*args, **kwargs):
        raise AssertionError("a maintenance job opened the index")

    monkeypatch.setattr(store.EdgeStore, "__init__", refuse)
    monkeypatch.setattr(store.ClientStore, "__init__", refuse)
    with pytest.raises(IndexUnavailable):
        runtime.store()


@pytest.fixture
def busy_day(alice, provider):
    """Work for every job: a pending note, near-duplicates today, a contradiction, a short note."""
    for _ in range(20):
        provider.reply_json(FIELDS, role="construct")
    provider.reply_json(
        {"verdict": "EXPAND", "mergedContent": "Alice's dog Rex is a beagle who loves the beach."},
        role="evolution_judge",
    )
    for _ in range(5):
        provider.reply_json(
            {"should_merge": True, "merged": "Alice runs every morning before work, 10 km."}, role="should_merge"
        )
    # The pair sweep asks the model about the night's pairs, the likeliest change first: it finds a
    # contradiction in the second it reads, none in the others.
    provider.reply_json({"pairs": []}, role="conflict_scan")
    provider.reply_json({"pairs": [{"a": 0, "b": 1, "reason": "cannot both be true"}]}, role="conflict_scan")
    for _ in range(8):
        provider.reply_json({"pairs": []}, role="conflict_scan")
    provider.reply_json({"reflection": "Alice keeps up her morning routine.", "cites": [0, 1]}, role="reflect")
    old = put(alice, "Alice's dog Rex is a beagle.", axis(0), created_at=timezone.now() - timedelta(days=3))
    new = put(alice, "Rex, Alice's beagle, loves the beach.", near(0, 0.8, 1))
    Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.8, opened_by="write")
    put(alice, "Alice runs every morning before work.", axis(2))
    put(alice, "Alice runs 10 km every morning before work.", near(2, 0.9, 3))
    put(alice, "Alice only drinks green tea.", axis(4), category="Project")
    put(alice, "Alice drinks three coffees a day.", axis(5), category="Project")
    put(alice, "ok thanks", axis(6), category="General")
    wrote(alice, timezone.now() - timedelta(minutes=5))
    return provider


@pytest.mark.parametrize("job", list(runner.JOB_MODULES))
def test_each_job_runs_in_the_worker_without_the_index(job, alice, busy_day, no_index):
    assert not runtime.index_available()
    row = runner.run_step(job, alice)
    assert row.outcome == "ok", row.detail


def test_the_scheduled_sequences_run_end_to_end_and_leave_changes_for_the_indexer(alice, busy_day, no_index):
    daytime = tasks.daytime()
    nightly = tasks.nightly()
    episodes, reflection = tasks.episodes(), tasks.reflection()
    assert daytime["outcome"] == nightly["outcome"] == episodes["outcome"] == reflection["outcome"] == "ok"
    runs = {(r.job, r.outcome, r.counts.get("merged", 0)) for r in JobRun.objects.filter(agent_id="alice")}
    assert ("pending_merge", "ok", 1) in runs and ("same_day_merge", "ok", 1) in runs
    assert {job for job, *_ in runs} == set(runner.JOB_MODULES) - {"contradiction_sweep"}  # run by hand
    # Every change waits in the outbox for the web process.
    changed = Note.objects.filter(revision__gt=1)
    assert changed.count() == 4 and all(n.index_dirty for n in changed)
    assert Note.objects.waiting(Pair.CONFLICT).count() == 2
    assert Pair.objects.open().get(kind=Pair.CONFLICT).opened_by == "model"
    assert Note.objects.get(content="ok thanks").low_quality_reasons == ["filler"]
