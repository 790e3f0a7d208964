"""Take a consistent backup of the database while the server runs (docs/deploy.md "Backup and restore").

SQLite: the SQLite online backup API copies a consistent snapshot (writers wait only for each
page step). PostgreSQL: ``pg_dump --format=custom`` (one transaction, so consistent) when
``pg_dump`` is on the PATH; otherwise the command to run is printed. The index is not copied:
it is derived from the database and ``amem_restore`` rebuilds it. A ``manifest.json`` says
what the backup holds.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from memories.models import Note

MANIFEST = "manifest.json"
SQLITE_FILE = "amem.sqlite3"
PG_FILE = "amem.pgdump"


def pg_url() -> str:
    """The database's URL for pg_dump/pg_restore, without the password (that goes in ``pg_env``)."""
    db = settings.DATABASES["default"]
    return f"postgresql://{db['USER']}@{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}/{db['NAME']}"


def pg_env() -> dict[str, str]:
    """The environment for pg_dump/pg_restore: the password never appears in a process list."""
    password = settings.DATABASES["default"].get("PASSWORD")
    return {**os.environ, **({"PGPASSWORD": password} if password else {})}


def run_pg_tool(tool: str, *args: str) -> None:
    """Run pg_dump or pg_restore against this database; its own error, cut short, on failure."""
    done = subprocess.run([tool, *args], env=pg_env(), check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise CommandError(f"{tool} failed: {done.stderr.strip()[-2000:]}")


class Command(BaseCommand):
    help = "Back up the database (online, consistent) into a new folder; the index is rebuilt on restore."

    def add_arguments(self, parser):
        parser.add_argument("target", help="a folder to create (must not exist)")

    def handle(self, *args, target: str, **options):
        out = Path(target)
        if out.exists():
            raise CommandError(f"{out} exists already; give a new folder")
        out.mkdir(parents=True)
        started = time.monotonic()
        if connection.vendor == "sqlite":
            self._sqlite(out / SQLITE_FILE)
            kind, file = "sqlite", SQLITE_FILE
        elif connection.vendor == "postgresql":
            self._postgres(out / PG_FILE)
            kind, file = "postgresql", PG_FILE
        else:
            raise CommandError(f"no backup recipe for {connection.vendor}")
        head = MigrationRecorder.Migration.objects.filter(app="memories").order_by("-id").values_list("name", flat=True)
        manifest = {
            "database": kind,
            "file": file,
            "taken_at": timezone.now().isoformat(),
            "notes": Note.objects.count(),
            "migration": head.first(),
            "embedding_model": settings.AMEM_EMBED_MODEL,
            "index": "not copied: amem_restore rebuilds it from the database (amem_reindex --recreate)",
        }
        (out / MANIFEST).write_text(json.dumps(manifest, indent=2))
        took = time.monotonic() - started
        self.stdout.write(f"backup of {manifest['notes']} notes in {out} ({kind}, {took:.1f} s)")

    def _sqlite(self, dest: Path) -> None:
        source = sqlite3.connect(settings.DATABASES["default"]["NAME"], timeout=30)
        copy = sqlite3.connect(dest)
        try:
            # 1024 pages a step: a writer waits for one step at most, never for the whole copy.
            source.backup(copy, pages=1024, sleep=0.005)
        finally:
            copy.close()
            source.close()

    def _postgres(self, dest: Path) -> None:
        if shutil.which("pg_dump") is None:
            raise CommandError(f"pg_dump is not on the PATH; run: pg_dump --format=custom -f {dest} '{pg_url()}'")
        run_pg_tool("pg_dump", "--format=custom", "--no-owner", "-f", str(dest), pg_url())
