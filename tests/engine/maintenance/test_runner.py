"""The runner: JobRun rows, which agents are due, the idle gate, scheduled sequences."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from engine.maintenance import runner
from engine.maintenance.runner import Gate, run_jobs, run_step
from memories.models import Agent, JobRun
from tests.engine.maintenance import fake_jobs
from tests.engine.maintenance.conftest import wrote


@pytest.fixture(autouse=True)
def fake_job(monkeypatch):
    monkeypatch.setitem(runner.JOB_MODULES, "fake", "tests.engine.maintenance.fake_jobs")
    monkeypatch.setitem(runner.JOB_MODULES, "other", "tests.engine.maintenance.fake_jobs")
    monkeypatch.setitem(runner.SEQUENCES, "nightly", ("fake", "other"))
    fake_jobs.RAN.clear()


def test_a_step_leaves_a_jobrun_with_counts_duration_and_outcome(alice):
    row = run_step("fake", alice, options={"calls": 2})
    row.refresh_from_db()
    assert (row.job, row.agent_id, row.outcome) == ("fake", "alice", "ok")
    assert row.counts == {"llm_calls": 2, "done": 1}
    assert row.finished_at is not None and row.duration_s >= 0


def test_a_failing_step_is_recorded_and_the_other_agents_still_run(alice, bob):
    wrote(alice)
    wrote(bob)
    summary = run_jobs(["fake"], options={"fail_for": "alice"})
    outcomes = {r.agent_id: (r.outcome, r.detail) for r in summary.runs}
    assert outcomes == {"alice": ("failed", "RuntimeError: boom"), "bob": ("ok", "")}


def test_unknown_jobs_fail_before_anything_runs(alice):
    wrote(alice)
    with pytest.raises(ValueError, match="unknown job 'nope'"):
        run_jobs(["fake", "nope"])
    assert fake_jobs.RAN == [] and not JobRun.objects.exists()


def test_only_agents_that_wrote_since_their_last_completed_run_are_due(alice, bob, make_agent):
    make_agent("silent")  # never wrote
    make_agent("retired", is_active=False, last_write_at=timezone.now())
    wrote(alice)
    wrote(bob)
    assert [a.pk for a in runner.due_agents("fake")] == ["alice", "bob"]
    run_jobs(["fake"])
    assert runner.due_agents("fake") == []
    assert [a.pk for a in runner.due_agents("other")] == ["alice", "bob"]  # per job
    wrote(bob)
    assert [a.pk for a in runner.due_agents("fake")] == ["bob"]


def test_a_second_run_right_after_the_first_does_nothing(alice, bob):
    wrote(alice)
    wrote(bob)
    first = run_jobs(["fake", "other"])
    second = run_jobs(["fake", "other"])
    assert len(first.runs) == 4 and second.runs == []
    assert JobRun.objects.count() == 4


@pytest.mark.parametrize(
    "outcome, due", [("ok", False), ("unavailable", False), ("partial", True), ("stopped", True), ("failed", True)]
)
def test_which_outcomes_complete_a_run(alice, outcome, due):
    wrote(alice, timezone.now() - timedelta(minutes=5))
    JobRun.objects.create(job="fake", agent_id="alice", outcome=outcome)
    assert (alice in runner.due_agents("fake")) is due


def test_an_unavailable_step_says_so(alice):
    row = run_step("fake", alice, options={"unavailable": True})
    assert (row.outcome, row.detail) == ("unavailable", "no model")


def test_a_failed_model_call_makes_the_step_partial_and_the_agent_stays_due(alice, provider):
    provider.fail(500)
    provider.reply_json({"keywords": ["tea"], "tags": ["drinks"], "context": "About tea."})
    wrote(alice)
    row = run_step("fake", alice, options={"calls": 2})
    assert row.outcome == "partial"
    assert row.counts == {"llm_calls": 2, "llm_failed": 1, "done": 1}
    assert runner.due_agents("fake") == [alice]


# --- the idle gate ---------------------------------------------------------------------


def test_the_gate_opens_idle_seconds_after_the_last_write_of_any_agent(alice, bob, clock):
    gate = Gate(60, now=clock.now)
    assert not gate.busy()  # nobody ever wrote
    wrote(alice, clock.t - timedelta(seconds=200))
    wrote(bob, clock.t - timedelta(seconds=59))
    assert gate.busy() and gate.wait_needed() == pytest.approx(1.0)
    wrote(bob, clock.t - timedelta(seconds=60))
    assert not gate.busy()
    assert not Gate(0, now=clock.now).busy()


def test_a_step_does_not_start_its_model_calls_while_writes_are_recent(alice):
    wrote(alice)
    row = run_step("fake", alice, gate=Gate(60), options={"calls": 2})
    assert row.outcome == "stopped" and "write arrived" in row.detail
    assert "llm_calls" not in row.counts and "done" not in row.counts


def test_a_write_during_a_step_stops_it_at_its_next_model_call(alice, clock):
    gate = Gate(60, now=clock.now)
    wrote(alice, clock.t - timedelta(minutes=5))
    options = {"calls": 3, "after_call": lambda i: i == 1 and wrote(alice, clock.t)}
    row = run_step("fake", alice, gate=gate, options=options)
    assert row.outcome == "stopped"
    assert row.counts == {"llm_calls": 1}  # the second call never went out
    assert runner.due_agents("fake") == [alice]


def test_a_scheduled_run_waits_for_quiet_before_a_step(alice, clock):
    wrote(alice, clock.t - timedelta(seconds=45))
    summary = run_jobs(["fake"], gate=Gate(60, now=clock.now), max_wait_s=3600, sleep=clock.sleep)
    assert clock.slept == [pytest.approx(15.0)]
    assert [r.outcome for r in summary.runs] == ["ok"] and summary.ended == ""


def test_sixty_minutes_of_waiting_end_the_run_and_the_agents_left_are_done_next_time(alice, bob, clock):
    wrote(alice, clock.t)
    wrote(bob, clock.t)
    clock.on_sleep = lambda: wrote(bob, clock.t)  # bob never pauses
    summary = run_jobs(["fake"], gate=Gate(60, now=clock.now), max_wait_s=3600, sleep=clock.sleep)
    assert summary.runs == [] and "waited 60 min" in summary.ended
    assert summary.left == ["fake:alice", "fake:bob"]
    assert sum(clock.slept) == pytest.approx(3600)
    clock.on_sleep = None
    clock.t += timedelta(hours=20)  # the next night, all quiet
    again = run_jobs(["fake"], gate=Gate(60, now=clock.now), max_wait_s=3600, sleep=clock.sleep)
    assert [(r.agent_id, r.outcome) for r in again.runs] == [("alice", "ok"), ("bob", "ok")]


def test_a_stopped_step_resumes_after_quiet_and_three_stops_end_the_run(alice, bob, clock):
    wrote(alice, clock.t - timedelta(minutes=5))
    wrote(bob, clock.t - timedelta(minutes=5))
    options = {"calls": 2, "after_call": lambda i: wrote(alice, clock.t)}  # a write during every step
    gate = Gate(60, now=clock.now)
    summary = run_jobs(["fake", "other"], gate=gate, max_wait_s=3600, max_stops=3, sleep=clock.sleep, options=options)
    assert [(r.agent_id, r.outcome) for r in summary.runs] == [("alice", "stopped")] * 3
    assert summary.ended == "fake for alice was stopped 3 times"
    assert summary.left == ["fake:alice", "fake:bob", "other:alice", "other:bob"]
    assert len(clock.slept) == 2  # it waited for quiet between the stops


def test_a_step_stopped_once_is_retried_in_the_same_run(alice, clock):
    wrote(alice, clock.t - timedelta(minutes=5))
    options = {"calls": 2, "after_call": lambda i: len(fake_jobs.RAN) == 1 and wrote(alice, clock.t)}
    summary = run_jobs(["fake"], gate=Gate(60, now=clock.now), max_wait_s=3600, sleep=clock.sleep, options=options)
    assert [r.outcome for r in summary.runs] == ["stopped", "ok"]
    assert runner.due_agents("fake") == []


def test_the_nightly_sequence_leaves_a_summary_row(alice, bob, config):
    wrote(alice, timezone.now() - timedelta(minutes=5))
    wrote(bob, timezone.now() - timedelta(minutes=5))
    row = runner.run_sequence("nightly")
    assert (row.job, row.agent_id, row.outcome) == ("nightly", "", "ok")
    assert row.counts == {"steps": 4, "ok": 4, "waited_s": 0, "left": 0}
    assert JobRun.objects.filter(job__in=("fake", "other")).count() == 4


def test_the_daytime_sequence_does_not_wait_for_a_busy_service(alice, config, monkeypatch):
    monkeypatch.setitem(runner.SEQUENCES, "daytime", ("fake",))
    config(idle_seconds=60)
    wrote(alice)
    slept = []
    row = runner.run_sequence("daytime", sleep=slept.append)
    assert row.outcome == "ended" and slept == [] and fake_jobs.RAN == []
    assert "fake:alice" in row.detail


def test_tasks_are_the_scheduled_entry_points(alice):
    from engine.maintenance import tasks

    wrote(alice, timezone.now() - timedelta(minutes=5))
    result = tasks.nightly()
    assert result["outcome"] == "ok" and result["counts"]["steps"] == 2
    assert Agent.objects.get(pk="alice").last_write_at < timezone.now() - timedelta(minutes=4)  # jobs never "write"
