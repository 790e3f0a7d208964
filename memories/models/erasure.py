"""The audit record of an erasure (engine/erasure.py): who erased what scope, when, and how much.

It holds no content: the subject of a subject erasure is kept as a digest, so the record
proves the request was carried out without naming the person again.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Erasure(models.Model):
    NOTE = "note"
    SUBJECT = "subject"
    AGENT = "agent"
    SCOPES = [(NOTE, "note"), (SUBJECT, "subject"), (AGENT, "agent")]

    scope = models.CharField(max_length=10, choices=SCOPES)
    # The agent whose memory was erased ("" = a subject erased across every agent).
    agent_id = models.CharField(max_length=64, blank=True, db_index=True)
    # sha256 of the subject for a subject erasure; "" otherwise.
    subject_digest = models.CharField(max_length=64, blank=True)
    actor = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    # How many rows of each kind were erased or scrubbed (notes, events, links, facts, ...).
    counts = models.JSONField(default=dict, blank=True)
    # Ids of the note tombstones (UUIDs carry no content).
    note_ids = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        who = self.agent_id or "every agent"
        return f"erasure of {self.scope} ({who}) by {self.actor} at {self.created_at:%Y-%m-%d %H:%M}"
