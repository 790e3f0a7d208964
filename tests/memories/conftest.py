"""Fixtures of the data layer's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from testsupport.migrations import migrate_to_latest


@pytest.fixture
def latest_schema_after() -> Iterator[None]:
    """Every later test on this worker shares the database: a migration test leaves it at the
    latest migration, not where it moved it (a later migration's column would be missing)."""
    yield
    migrate_to_latest()
