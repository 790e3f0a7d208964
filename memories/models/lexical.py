"""BM25's length statistics per agent (engine/index_sync/lexical_length.py keeps them)."""

from __future__ import annotations

from django.db import models


class LexicalStats(models.Model):
    """The BM25 terms an agent's indexed notes hold, and the average its index vectors were made with.

    Keyed by the notes' ``agent_id`` (not a foreign key): the shared pool's notes have one too.
    """

    agent_id = models.CharField(primary_key=True, max_length=64)
    notes = models.PositiveIntegerField(default=0)
    terms = models.PositiveBigIntegerField(default=0)
    # The average length the agent's BM25 vectors were last all written with; None: never set, so
    # they were written with the configured constant (AMEM_BM25_AVG_LEN).
    indexed_average = models.FloatField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.agent_id}: {self.notes} notes, {self.terms} terms"

    @property
    def average(self) -> float | None:
        return self.terms / self.notes if self.notes else None
