"""SQLite runs in WAL mode, so the heat bump every search makes is an append, not a journal dance."""

from __future__ import annotations

import pytest
from django.conf import settings


def test_a_sqlite_database_file_opens_in_wal_mode_with_normal_sync(tmp_path):
    config = settings.DATABASES["default"]
    if config["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("SQLite only")
    from django.db.backends.sqlite3.base import DatabaseWrapper

    wrapper = DatabaseWrapper({**config, "NAME": str(tmp_path / "wal.sqlite3")}, alias="wal-check")
    # A raw connection as Django opens it (init_command included), outside the test database.
    conn = wrapper.get_new_connection(wrapper.get_connection_params())
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    finally:
        conn.close()
