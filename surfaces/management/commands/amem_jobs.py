"""Run a maintenance job now, or list recent runs (docs/maintenance.md)."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.utils import timezone
from tqdm import tqdm

from engine.config import get_config
from engine.maintenance import runner
from memories.models import Agent, JobRun
from surfaces.management.base import AmemCommand


class _Bar:
    """tqdm behind the runner's Progress protocol: jobs grow the total as they find work."""

    def __init__(self, bar: tqdm) -> None:
        self.bar = bar

    def grow(self, n: int) -> None:
        self.bar.total = (self.bar.total or 0) + n
        self.bar.refresh()

    def advance(self, n: int = 1) -> None:
        self.bar.update(n)


def describe(row: JobRun) -> str:
    duration = f"{row.duration_s:.1f}s" if row.duration_s is not None else "-"
    counts = " ".join(f"{k}={v}" for k, v in sorted(row.counts.items())) or "-"
    started = f"{timezone.localtime(row.started_at):%Y-%m-%d %H:%M:%S}"
    line = f"{started}  {row.job:20} {row.agent_id or '-':16} {row.outcome:11} {duration:>8}  {counts}"
    return line + (f"\n    {row.detail}" if row.detail else "")


class Command(AmemCommand):
    help = (
        "Maintenance jobs. 'run JOB' runs one now (JOB: "
        + ", ".join(runner.JOB_MODULES)
        + ", or a whole sequence: "
        + ", ".join(runner.SEQUENCES)
        + ") for the agents that wrote since its last run, or --agent X / --all; 'list' shows recent runs."
    )

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        run = sub.add_parser("run", help="run a job now")
        run.add_argument("job")
        who = run.add_mutually_exclusive_group()
        who.add_argument("--agent", help="this agent, whether or not it wrote since the last run")
        who.add_argument("--all", action="store_true", help="every active agent")
        run.add_argument(
            "--force",
            action="store_true",
            help="contradiction sweep: re-read batches already scanned; quality scan: the model reads every note again (after a refit)",
        )
        run.add_argument("--mode", choices=("review", "auto"), help="contradiction sweep: override AMEM_CONFLICT_MODE")
        run.add_argument(
            "--idle",
            action="store_true",
            help="honour the idle gate as a scheduled run does (default: run now, whatever the traffic)",
        )
        run.add_argument("--no-progress", action="store_true")
        listing = sub.add_parser("list", help="recent job runs, newest first")
        listing.add_argument("--job")
        listing.add_argument("--agent")
        listing.add_argument("--limit", type=int, default=20)

    def handle(self, *args, action, **options):
        if action == "list":
            return self._list(options["job"], options["agent"], options["limit"])
        return self._run(**options)

    def _list(self, job, agent, limit):
        rows = JobRun.objects.all()
        if job:
            rows = rows.filter(job=job)
        if agent:
            rows = rows.filter(agent_id=agent)
        runs = list(rows[: max(limit, 1)])
        if not runs:
            self.stdout.write("no job runs yet")
        for run in runs:
            self.stdout.write(describe(run))

    def _run(self, *, job, agent, all, force, mode, idle, no_progress, **_):
        jobs = runner.SEQUENCES.get(job, (job,))
        if job not in runner.SEQUENCES and job not in runner.JOB_MODULES:
            raise CommandError(f"unknown job {job!r}; known: {', '.join([*runner.JOB_MODULES, *runner.SEQUENCES])}")
        agents = None
        if agent:
            agents = [self.agent(agent)]
        elif all:
            agents = list(Agent.objects.filter(is_active=True))
        cfg = get_config()
        gate = runner.Gate(cfg.idle_seconds) if idle else runner.OPEN_GATE
        options = {"force": force, **({"mode": mode} if mode else {})}
        with tqdm(total=0, desc=job, unit="item", disable=no_progress) as bar:
            summary = runner.run_jobs(
                jobs,
                agents=agents,
                gate=gate,
                max_wait_s=cfg.idle_max_wait_minutes * 60 if idle else 0,
                max_stops=cfg.idle_max_stops,
                options=options,
                progress=_Bar(bar),
            )
        if not summary.runs and not summary.ended:
            self.stdout.write(f"nothing to do: no agent wrote since its last {job} run (use --agent ID or --all)")
        for row in summary.runs:
            self.stdout.write(describe(row))
        if summary.ended:
            self.stdout.write(f"ended early: {summary.ended}; left for the next run: {' '.join(summary.left) or '-'}")
        if any(row.outcome == runner.FAILED for row in summary.runs):
            raise CommandError("a job failed (see the detail above and the log)")
