"""amem_schedules: the declared schedules land in django-q2 once, stay in sync, orphans go."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

from django.core.management import call_command
from django.utils import timezone
from django.utils.module_loading import import_string
from django_q.models import Schedule

from engine.maintenance.schedules import declared, sync_schedules


def rows() -> dict:
    return {s.name: (s.func, s.schedule_type, s.cron, s.repeats) for s in Schedule.objects.all()}


def test_sync_creates_the_declared_schedules_and_is_idempotent(db):
    first = sync_schedules()
    assert sorted(first.created) == ["amem.daytime", "amem.episodes", "amem.nightly", "amem.reflection"]
    assert rows() == {
        "amem.nightly": ("engine.maintenance.tasks.nightly", Schedule.CRON, "30 2 * * *", -1),
        "amem.daytime": ("engine.maintenance.tasks.daytime", Schedule.CRON, "15 * * * *", -1),
        "amem.episodes": ("engine.maintenance.tasks.episodes", Schedule.CRON, "*/10 * * * *", -1),
        "amem.reflection": ("engine.maintenance.tasks.reflection", Schedule.CRON, "0 4 * * *", -1),
    }
    before = list(Schedule.objects.values_list("pk", "next_run"))
    second = sync_schedules()
    assert second.created == second.updated == second.deleted == []
    assert sorted(second.unchanged) == ["amem.daytime", "amem.episodes", "amem.nightly", "amem.reflection"]
    assert list(Schedule.objects.values_list("pk", "next_run")) == before


def test_a_changed_cron_updates_the_row_and_its_next_run(db, config):
    sync_schedules()
    nightly = Schedule.objects.get(name="amem.nightly")
    Schedule.objects.filter(pk=nightly.pk).update(next_run=timezone.now() + timedelta(days=30))
    config(nightly_cron="0 4 * * *")
    result = sync_schedules()
    assert result.updated == ["amem.nightly"]
    row = Schedule.objects.get(pk=nightly.pk)
    assert row.cron == "0 4 * * *"
    assert timezone.localtime(row.next_run).hour == 4 and row.next_run < timezone.now() + timedelta(days=1, minutes=1)


def test_orphans_of_ours_and_duplicates_are_deleted_and_other_schedules_kept(db):
    sync_schedules()
    Schedule.objects.create(name="amem.old-job", func="engine.maintenance.tasks.gone", schedule_type=Schedule.DAILY)
    Schedule.objects.create(name="amem.nightly", func="engine.maintenance.tasks.nightly", schedule_type=Schedule.DAILY)
    Schedule.objects.create(name="backup", func="ops.tasks.backup", schedule_type=Schedule.DAILY)
    result = sync_schedules()
    assert sorted(result.deleted) == ["amem.nightly", "amem.old-job"]
    assert sorted(Schedule.objects.values_list("name", flat=True)) == [
        "amem.daytime",
        "amem.episodes",
        "amem.nightly",
        "amem.reflection",
        "backup",
    ]
    assert Schedule.objects.get(name="amem.nightly").schedule_type == Schedule.CRON


def test_every_scheduled_function_resolves():
    for item in declared():
        assert callable(import_string(item.func)), item.func


def test_the_command_prints_what_it_did(db):
    out = StringIO()
    call_command("amem_schedules", stdout=out)
    text = out.getvalue()
    assert "created   amem.nightly" in text and "cron '30 2 * * *'" in text
    out = StringIO()
    call_command("amem_schedules", stdout=out)
    assert "unchanged amem.nightly" in out.getvalue()
    assert Schedule.objects.count() == 4
