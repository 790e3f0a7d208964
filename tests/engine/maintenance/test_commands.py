"""amem_jobs: run a job by hand, list the runs."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from engine.maintenance import runner
from memories.models import JobRun
from tests.engine.maintenance import fake_jobs
from tests.engine.maintenance.conftest import wrote


@pytest.fixture(autouse=True)
def fake_job(monkeypatch):
    monkeypatch.setitem(runner.JOB_MODULES, "fake", "tests.engine.maintenance.fake_jobs")
    fake_jobs.RAN.clear()


def run(*args) -> str:
    out = StringIO()
    call_command("amem_jobs", *args, "--no-progress", stdout=out) if args[0] == "run" else call_command(
        "amem_jobs", *args, stdout=out
    )
    return out.getvalue()


def test_run_for_one_agent_prints_the_jobrun_summary(alice, bob):
    out = run("run", "fake", "--agent", "alice")
    assert fake_jobs.RAN == ["alice"]
    assert "fake" in out and "alice" in out and "ok" in out and "done=1" in out
    assert JobRun.objects.get().agent_id == "alice"


def test_run_without_an_agent_visits_the_due_ones_and_says_when_there_are_none(alice, bob):
    wrote(bob)
    run("run", "fake")
    assert fake_jobs.RAN == ["bob"]
    assert "nothing to do" in run("run", "fake")
    run("run", "fake", "--all")
    assert fake_jobs.RAN == ["bob", "alice", "bob"]


def test_by_hand_the_gate_is_ignored_unless_asked(alice, config):
    config(idle_seconds=60, idle_max_wait_minutes=0)
    wrote(alice)
    run("run", "fake", "--agent", "alice")
    assert fake_jobs.RAN == ["alice"]
    out = run("run", "fake", "--agent", "alice", "--idle")
    assert fake_jobs.RAN == ["alice"] and "ended early" in out


def test_unknown_jobs_and_agents_are_one_line_errors(alice):
    with pytest.raises(CommandError, match="unknown job 'nope'"):
        run("run", "nope")
    with pytest.raises(CommandError, match="no active agent"):
        run("run", "fake", "--agent", "ghost")


def test_a_failed_job_fails_the_command(alice, monkeypatch):
    monkeypatch.setattr(fake_jobs, "run", lambda step: 1 / 0)
    with pytest.raises(CommandError, match="a job failed"):
        call_command("amem_jobs", "run", "fake", "--agent", "alice", "--no-progress", stdout=StringIO())


def test_list_shows_recent_runs_newest_first(alice):
    JobRun.objects.create(
        job="fake",
        agent_id="alice",
        outcome="ok",
        counts={"flagged": 2},
        started_at=timezone.now() - timedelta(hours=1),
        finished_at=timezone.now(),
    )
    JobRun.objects.create(job="other", agent_id="bob", outcome="stopped", detail="a write arrived")
    out = run("list")
    lines = out.splitlines()
    assert "other" in lines[0] and "a write arrived" in lines[1] and "flagged=2" in lines[2]
    assert "other" not in run("list", "--job", "fake")
