"""The maintenance schedules, declared here and synced into django-q2 by ``manage.py amem_schedules``.

django-q2's own ``schedule()`` helper creates a row every time it is called, and
creating schedules at start-up duplicates them. So the schedules are
declared in code and synced idempotently: update-or-create by name, then delete
the rows of ours (``amem.`` names or our task module) that are no longer declared.
Other schedules in the table are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from croniter import croniter
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django_q.models import Schedule

from engine.config import get_config

PREFIX = "amem."
TASKS = "engine.maintenance.tasks."


@dataclass(frozen=True)
class Declared:
    name: str
    func: str
    cron: str
    description: str


def declared() -> list[Declared]:
    cfg = get_config()
    return [
        Declared(
            f"{PREFIX}nightly",
            f"{TASKS}nightly",
            cfg.nightly_cron,
            "pending merges, consolidation, pair sweep, quality scan",
        ),
        Declared(f"{PREFIX}daytime", f"{TASKS}daytime", cfg.daytime_cron, "pending merges, same-day merge"),
        Declared(f"{PREFIX}episodes", f"{TASKS}episodes", cfg.episodes_cron, "close idle conversation sessions"),
        Declared(f"{PREFIX}reflection", f"{TASKS}reflection", cfg.reflection_cron, "reflection notes per agent"),
    ]


@dataclass
class SyncResult:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


def _next_run(cron: str) -> datetime:
    return croniter(cron, timezone.localtime()).get_next(datetime)


def sync_schedules() -> SyncResult:
    """Make django-q2's Schedule table hold exactly the declared schedules of ours."""
    result = SyncResult()
    wanted = declared()
    with transaction.atomic():
        for item in wanted:
            rows = list(Schedule.objects.filter(name=item.name).order_by("pk"))
            for extra in rows[1:]:  # Schedule.name is not unique: a duplicate is an orphan
                extra.delete()
                result.deleted.append(item.name)
            row = rows[0] if rows else None
            values = {"func": item.func, "schedule_type": Schedule.CRON, "cron": item.cron, "repeats": -1}
            if row is None:
                Schedule.objects.create(name=item.name, args=None, kwargs=None, **values)
                result.created.append(item.name)
                continue
            if all(getattr(row, k) == v for k, v in values.items()):
                result.unchanged.append(item.name)
                continue
            cron_changed = row.cron != item.cron or row.schedule_type != Schedule.CRON
            for key, value in values.items():
                setattr(row, key, value)
            if cron_changed:
                # Schedule.save() computes next_run from the cron only on insert.
                row.next_run = _next_run(item.cron)
            row.save()
            result.updated.append(item.name)
        ours = Q(name__startswith=PREFIX) | Q(func__startswith=TASKS)
        for row in Schedule.objects.filter(ours).exclude(name__in=[d.name for d in wanted]):
            result.deleted.append(row.name or row.func)
            row.delete()
    return result
