"""Operations records: the audit of erasures (engine/erasure.py) and the worker's heartbeat.

An Erasure row says who erased what scope, when, and how much.

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


class WorkerBeat(models.Model):
    """The maintenance worker's last sign of life (manage.py amem_worker writes it every 30 s).

    ``/healthz?deep`` reads it: a worker that died, or whose broker is unreachable, stops beating.
    """

    name = models.CharField(primary_key=True, max_length=100)  # host:pid of the worker
    seen_at = models.DateTimeField(default=timezone.now)
    broker = models.CharField(max_length=20)  # "orm" or "redis"
    broker_ok = models.BooleanField(default=True)
    detail = models.CharField(max_length=300, blank=True)

    def __str__(self) -> str:
        return f"{self.name} on {self.broker} at {self.seen_at:%H:%M:%S}"
