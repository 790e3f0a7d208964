"""What every hand-run benchmark needs first: Django on a scratch database and index."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def scratch_django(data_dir: str, prefix: str, **settings: str) -> Path:
    """Set up Django on a fresh SQLite file and embedded index in ``data_dir`` (or a temp dir), migrated.

    ``settings``: more environment for this benchmark (e.g. ``AMEM_LLM_PROVIDER="none"``).
    """
    path = Path(data_dir or tempfile.mkdtemp(prefix=prefix))
    path.mkdir(parents=True, exist_ok=True)
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "amem_site.settings",
            "AMEM_DATA_DIR": str(path),
            "DATABASE_URL": f"sqlite:///{path / 'bench.sqlite3'}",
            "AMEM_LOG_LEVEL": "WARNING",
            **settings,
        }
    )
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return path
