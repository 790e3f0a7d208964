"""django-q2 entry points. Their dotted names are stored in the Schedule table: keep them stable."""

from __future__ import annotations

from engine.maintenance import runner


def nightly() -> dict:
    """The 02:30 run: pending merges, consolidation, contradiction sweep, quality scan."""
    return _summary(runner.run_sequence("nightly"))


def daytime() -> dict:
    """The daytime run: pending merges and the same-day merge, only while the service is quiet."""
    return _summary(runner.run_sequence("daytime"))


def episodes() -> dict:
    """Every few minutes: close conversation sessions idle for AMEM_EPISODE_IDLE_MINUTES."""
    return _summary(runner.run_sequence("episodes"))


def reflection() -> dict:
    """Daily, idle-gated: a reflection note per agent that wrote since its last one."""
    return _summary(runner.run_sequence("reflection"))


def _summary(row) -> dict:
    return {"job": row.job, "outcome": row.outcome, "counts": row.counts, "detail": row.detail}
