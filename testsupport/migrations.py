"""Moving the test database between migrations, for tests of a data migration."""

from __future__ import annotations

from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(to: list[tuple[str, str]]) -> Apps:
    """Migrate to ``to``; the historical models there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(to)
    return executor.loader.project_state(to).apps


def migrate_to_latest() -> None:
    """Every migration: a test that moved the shared database back leaves it as later tests expect."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
