"""Running maintenance jobs: one step per (job, agent), a JobRun row each, the idle gate.

A *step* is one job for one agent. It leaves a JobRun row with its counts,
duration and outcome whatever happens. A job visits only the agents that wrote
since their last completed run of that job, so a second run right after the
first finds nothing to do, and an agent left over by an interrupted night is
picked up by the next one.

The idle gate (docs/architecture.md §6) keeps maintenance out of the way of live traffic: a
step starts only when no agent has written for ``idle_seconds``, and a write
arriving while it runs stops it at its next model call (work already committed
stays; the rest waits). Scheduled runs wait for quiet and retry a stopped step;
``idle_max_stops`` stops of one step or ``idle_max_wait_minutes`` of waiting in
total end the run. The gate looks at writes of *every* agent: the database
(SQLite has one writer) and the model quota are shared.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib import import_module
from typing import Protocol, TypeVar

from django.db.models import Max
from django.utils import timezone

from engine.config import EngineConfig, get_config
from engine.llm.client import recorded_calls
from memories.models import Agent, JobRun

log = logging.getLogger("engine.maintenance")

T = TypeVar("T")

OK, PARTIAL, STOPPED, FAILED, UNAVAILABLE, RUNNING = "ok", "partial", "stopped", "failed", "unavailable", "running"
# "skipped": the job has nothing to do in this configuration (the model's batch sweep offline).
SKIPPED = "skipped"
# After these an agent is not visited again until it writes: "unavailable" (no model for the
# sweep) would otherwise be retried for every agent on every run.
DONE = (OK, UNAVAILABLE, SKIPPED)

# Job name → module with ``run(step)``. Imported on use, so job modules may import the runner.
JOB_MODULES: dict[str, str] = {
    "pending_merge": "engine.maintenance.pending",
    "same_day_merge": "engine.maintenance.same_day",
    "consolidation": "engine.maintenance.consolidation",
    "pair_sweep": "engine.maintenance.pair_sweep",
    "contradiction_sweep": "engine.maintenance.contradiction_sweep",
    "quality_scan": "engine.maintenance.quality",
    "episode_close": "engine.maintenance.episode_close",
    "reflection": "engine.maintenance.periodic_reflection",
}
# The scheduled sequences, in order: pending merges first, so later jobs see resolved notes.
SEQUENCES: dict[str, tuple[str, ...]] = {
    # pair_sweep weighs each new note beside its nearest notes; with a model configured it asks the
    # model about the top of its ranking (AMEM_SWEEP_MODEL_CALLS a night). contradiction_sweep, which
    # sends every note to the model in batches, is run by hand (amem_jobs run contradiction_sweep).
    "nightly": ("pending_merge", "consolidation", "pair_sweep", "quality_scan"),
    "daytime": ("pending_merge", "same_day_merge"),
    "episodes": ("episode_close",),
    "reflection": ("reflection",),
}
FAILED_CALL = ("provider_error", "parse_error")
MAX_POLL_S = 60.0


class Stopped(Exception):
    """A write arrived: the step ends before its next model call."""


class Progress(Protocol):
    def grow(self, n: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...


class Gate:
    """Whether the service has been quiet long enough for maintenance (0 s = always)."""

    def __init__(self, idle_seconds: float, *, now: Callable[[], datetime] = timezone.now) -> None:
        self.idle_seconds = idle_seconds
        self.now = now

    def wait_needed(self) -> float:
        """Seconds until the service has been quiet for ``idle_seconds`` (0: quiet now)."""
        if self.idle_seconds <= 0:
            return 0.0
        last = Agent.objects.aggregate(last=Max("last_write_at"))["last"]
        if last is None:
            return 0.0
        return max(0.0, self.idle_seconds - (self.now() - last).total_seconds())

    def busy(self) -> bool:
        return self.wait_needed() > 0

    def check(self) -> None:
        if self.busy():
            raise Stopped("a write arrived; the rest is left for the next run")


OPEN_GATE = Gate(0)


@dataclass
class Step:
    """What a job gets: its agent, config, options, counters and the gate at every model call."""

    job: str
    agent: Agent
    cfg: EngineConfig
    gate: Gate = OPEN_GATE
    options: dict = field(default_factory=dict)
    progress: Progress | None = None
    counts: Counter = field(default_factory=Counter)
    outcome: str = ""
    detail: str = ""

    @property
    def actor(self) -> str:
        return f"amem:{self.job}"

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] += n

    def grow(self, n: int) -> None:
        if self.progress is not None and n:
            self.progress.grow(n)

    def advance(self, n: int = 1) -> None:
        if self.progress is not None:
            self.progress.advance(n)

    def llm(self, role: str, call: Callable[[], T]) -> tuple[T, bool]:
        """Make one model call through the gate; ``ok`` is False when the provider failed.

        The LLM layer never raises and answers a failure with the role's safe
        default (NEW, no merge, no conflicts), which a job must not act on: a
        provider outage would otherwise clear every pending flag or mark every
        batch scanned. The outcome the LLM layer recorded for the call tells the two apart.
        """
        self.gate.check()
        with recorded_calls() as records:
            value = call()
        self.count("llm_calls")
        failed = any(r.role == role and r.outcome in FAILED_CALL for r in records)
        if failed:
            self.count("llm_failed")
        return value, not failed

    def unavailable(self, detail: str) -> None:
        self.outcome, self.detail = UNAVAILABLE, detail

    def skip(self, detail: str) -> None:
        self.outcome, self.detail = SKIPPED, detail


def _job_function(name: str) -> Callable[[Step], None]:
    if name not in JOB_MODULES:
        raise ValueError(f"unknown job {name!r}; known: {', '.join(JOB_MODULES)}")
    return import_module(JOB_MODULES[name]).run


def run_step(
    job: str,
    agent: Agent,
    *,
    gate: Gate = OPEN_GATE,
    options: dict | None = None,
    progress: Progress | None = None,
) -> JobRun:
    """Run one job for one agent now and return its JobRun (never raises for a job's failure)."""
    run_job = _job_function(job)
    row = JobRun.objects.create(job=job, agent_id=agent.pk)
    step = Step(job, agent, get_config(), gate, dict(options or {}), progress)
    try:
        run_job(step)
        outcome = step.outcome or (PARTIAL if step.counts["llm_failed"] else OK)
        detail = step.detail
    except Stopped as exc:
        outcome, detail = STOPPED, str(exc)
    except Exception as exc:  # a job's bug must not take the other agents' steps down with it
        log.exception("maintenance job %s failed for agent %s", job, agent.pk)
        outcome, detail = FAILED, f"{type(exc).__name__}: {exc}"[:2000]
    row.outcome, row.detail, row.counts = outcome, detail, dict(step.counts)
    row.finished_at = timezone.now()
    row.save(update_fields=["outcome", "detail", "counts", "finished_at"])
    log.info("job %s agent %s: %s %s", job, agent.pk, outcome, dict(step.counts))
    return row


def due_agents(job: str) -> list[Agent]:
    """Active agents that wrote since their last completed run of ``job``, least recently done first."""
    done = dict(
        JobRun.objects.filter(job=job, outcome__in=DONE)
        .values("agent_id")
        .annotate(last=Max("started_at"))
        .values_list("agent_id", "last")
    )
    agents = Agent.objects.filter(is_active=True, last_write_at__isnull=False)
    due = [a for a in agents if a.pk not in done or a.last_write_at > done[a.pk]]
    epoch = datetime.min.replace(tzinfo=timezone.get_current_timezone())
    return sorted(due, key=lambda a: (done.get(a.pk) or epoch, a.pk))


@dataclass
class RunSummary:
    """What a sequence run did; ``ended`` says why it stopped early ("" = it finished)."""

    runs: list[JobRun] = field(default_factory=list)
    waited_s: float = 0.0
    ended: str = ""
    left: list[str] = field(default_factory=list)


def wait_for_quiet(gate: Gate, budget_s: float, sleep: Callable[[float], None]) -> float | None:
    """Sleep until the gate opens; the seconds waited, or None when the budget ran out first."""
    waited = 0.0
    while (need := gate.wait_needed()) > 0:
        if waited >= budget_s:
            return None
        pause = min(need, budget_s - waited, MAX_POLL_S)
        log.info("maintenance waits %.0f s for %.0f s without writes", pause, gate.idle_seconds)
        sleep(pause)
        waited += pause
    return waited


def run_jobs(
    jobs: Sequence[str],
    *,
    agents: Iterable[Agent] | None = None,
    gate: Gate = OPEN_GATE,
    max_wait_s: float = 0.0,
    max_stops: int = 3,
    options: dict | None = None,
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> RunSummary:
    """Run ``jobs`` in order, each for its due agents (or ``agents``), honouring the gate.

    Before each step: wait for quiet (from one budget of ``max_wait_s`` for the
    whole run). A stopped step is retried after the next quiet spell; its
    ``max_stops``-th stop, or an exhausted budget, ends the run. What is left
    stays due and is done by the next run.
    """
    for job in jobs:
        _job_function(job)  # unknown names fail before anything runs
    summary = RunSummary()
    chosen = list(agents) if agents is not None else None
    for j, job in enumerate(jobs):
        todo = chosen if chosen is not None else due_agents(job)
        for i, agent in enumerate(todo):
            stops = 0
            while True:
                waited = wait_for_quiet(gate, max_wait_s - summary.waited_s, sleep)
                if waited is None:
                    summary.waited_s = max_wait_s
                    summary.ended = f"waited {max_wait_s / 60:.0f} min for quiet"
                    summary.left = _left(jobs[j:], todo[i:], chosen)
                    return summary
                summary.waited_s += waited
                row = run_step(job, agent, gate=gate, options=options, progress=progress)
                summary.runs.append(row)
                if row.outcome != STOPPED:
                    break
                stops += 1
                if stops >= max_stops:
                    summary.ended = f"{job} for {agent.pk} was stopped {stops} times"
                    summary.left = _left(jobs[j:], todo[i:], chosen)
                    return summary
    return summary


def _left(jobs: Sequence[str], first_agents: Sequence[Agent], chosen: list[Agent] | None) -> list[str]:
    left = [f"{jobs[0]}:{a.pk}" for a in first_agents]
    for job in jobs[1:]:
        left += [f"{job}:{a.pk}" for a in (chosen if chosen is not None else due_agents(job))]
    return left


def run_sequence(name: str, *, sleep: Callable[[float], None] = time.sleep, gate: Gate | None = None) -> JobRun:
    """A scheduled run (``nightly`` / ``daytime``) under the configured gate; one summary JobRun."""
    cfg = get_config()
    jobs = SEQUENCES[name]
    row = JobRun.objects.create(job=name)
    gate = gate or Gate(cfg.idle_seconds)
    # Daytime runs never wait: if the service is busy they try again at the next slot.
    max_wait = cfg.idle_max_wait_minutes * 60 if name in ("nightly", "reflection") else 0
    try:
        summary = run_jobs(jobs, gate=gate, max_wait_s=max_wait, max_stops=cfg.idle_max_stops, sleep=sleep)
    except Exception as exc:
        log.exception("maintenance run %s failed", name)
        row.outcome, row.detail = FAILED, f"{type(exc).__name__}: {exc}"[:2000]
    else:
        outcomes = Counter(r.outcome for r in summary.runs)
        row.counts = {
            "steps": len(summary.runs),
            **outcomes,
            "waited_s": round(summary.waited_s),
            "left": len(summary.left),
        }
        row.outcome = "ended" if summary.ended else (FAILED if outcomes[FAILED] else OK)
        row.detail = "; ".join(filter(None, [summary.ended, " ".join(summary.left[:50])]))
    row.finished_at = timezone.now()
    row.save(update_fields=["outcome", "detail", "counts", "finished_at"])
    return row
