"""PostgreSQL: a heat bump counts the notes free now and never waits for one another transaction holds."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from engine.retrieval.heat import bump_heat
from engine.write.pipeline import EpisodicItem, add_episodic_batch
from memories.models import Note

pytestmark = pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="PostgreSQL only: row locks (SQLite holds the whole database)",
)


def test_a_bump_skips_a_note_held_by_another_transaction_and_counts_the_rest(transactional_db, alice, store):
    held, free = add_episodic_batch(
        alice, [EpisodicItem("Anchor and kettle by the door."), EpisodicItem("A violin lesson on Monday.")]
    )
    params = connection.settings_dict
    other = psycopg.connect(
        dbname=params["NAME"],
        user=params["USER"],
        password=params["PASSWORD"] or None,
        host=params["HOST"] or None,
        port=params["PORT"] or None,
    )
    try:
        other.execute(f"SELECT 1 FROM {Note._meta.db_table} WHERE id = %s FOR UPDATE", [held.pk])
        began = time.monotonic()
        bump_heat([held.pk, free.pk], timezone.now())
        assert time.monotonic() - began < 2.0  # it did not queue behind the held row
    finally:
        other.rollback()
        other.close()
    counts = dict(Note.objects.filter(pk__in=[held.pk, free.pk]).values_list("pk", "retrieval_count"))
    assert counts == {held.pk: 0, free.pk: 1}
    bump_heat([str(held.pk), str(free.pk)], timezone.now())  # ids as strings, as well
    counts = dict(Note.objects.filter(pk__in=[held.pk, free.pk]).values_list("pk", "retrieval_count"))
    assert counts == {held.pk: 1, free.pk: 2}
