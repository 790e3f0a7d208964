"""Restore a backup made by amem_backup, then rebuild the index from it (the server must be stopped)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from amem_site.server_record import recorded_url
from engine import runtime
from surfaces.management.commands.amem_backup import MANIFEST, pg_url, run_pg_tool


class Command(BaseCommand):
    help = "Restore a backup folder from amem_backup into this installation's database and rebuild the index."

    def add_arguments(self, parser):
        parser.add_argument("source", help="the backup folder")
        parser.add_argument("--yes", action="store_true", help="confirm: the current database is replaced")

    def handle(self, *args, source: str, yes: bool = False, **options):
        folder = Path(source)
        try:
            manifest = json.loads((folder / MANIFEST).read_text())
        except (OSError, ValueError) as exc:
            raise CommandError(f"{folder} is not an amem backup ({MANIFEST}: {exc})") from None
        if manifest["database"] != connection.vendor:
            raise CommandError(f"the backup is of {manifest['database']}, this installation uses {connection.vendor}")
        if url := recorded_url(settings.AMEM_DATA_DIR):
            raise CommandError(f"a server is running at {url}; stop it (and the worker) before restoring")
        if not yes:
            raise CommandError("restoring replaces the current database; add --yes to confirm")
        started = time.monotonic()
        connection.close()
        if connection.vendor == "sqlite":
            target = Path(settings.DATABASES["default"]["NAME"])
            for suffix in ("-wal", "-shm"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
            shutil.copyfile(folder / manifest["file"], target)
        else:
            run_pg_tool(
                "pg_restore", "--clean", "--if-exists", "--no-owner", "-d", pg_url(), str(folder / manifest["file"])
            )
        restored = time.monotonic() - started
        call_command("migrate", verbosity=0)  # a backup from an older version catches up
        runtime.close_store()
        call_command("amem_reindex", "--recreate", "--no-progress", stdout=self.stdout)
        self.stdout.write(
            f"restored {manifest['notes']} notes from {folder} in {restored:.1f} s; "
            f"index rebuilt in {time.monotonic() - started - restored:.1f} s"
        )
