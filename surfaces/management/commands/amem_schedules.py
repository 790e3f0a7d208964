"""Write the maintenance schedules declared in code into django-q2 (idempotent)."""

from __future__ import annotations

from django_q.models import Schedule

from engine.maintenance.schedules import declared, sync_schedules
from surfaces.management.base import AmemCommand


class Command(AmemCommand):
    help = (
        "Sync the maintenance schedules declared in engine/maintenance/schedules.py into django-q2: "
        "create or update them by name, delete ours that are no longer declared. Safe to run on every deploy."
    )

    def handle(self, *args, **options):
        result = sync_schedules()
        for label, names in (
            ("created", result.created),
            ("updated", result.updated),
            ("unchanged", result.unchanged),
            ("deleted", result.deleted),
        ):
            for name in names:
                self.stdout.write(f"{label:9} {name}")
        for item in declared():
            row = Schedule.objects.filter(name=item.name).first()
            next_run = row.next_run.isoformat(timespec="minutes") if row and row.next_run else "-"
            self.stdout.write(f"{item.name}: cron '{item.cron}' → {item.func} (next {next_run}); {item.description}")
