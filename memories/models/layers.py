"""The memory layers' records (docs/architecture.md §9): core blocks and their history, facts, episodes.

Same rules as the notes: nothing is hard-deleted by the engine (a fact that stops
being true gets ``invalid_at``; a core edit is undone by another event), and every
row belongs to exactly one agent, whose API key is the only way in.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from memories.ids import (
    CheckedIds,
    check_agent_id,
    check_block_name,
    check_session,
    check_subject,
    validate_block_name,
    validate_label,
)


class CoreBlock(CheckedIds, models.Model):
    """One named block of core memory (Letta's "core memory block"): structured JSON, size-limited."""

    ID_FIELDS = {"subject": check_subject, "name": check_block_name}
    OPTIONAL_IDS = frozenset({"subject"})

    agent = models.ForeignKey("memories.Agent", on_delete=models.CASCADE, related_name="core_blocks")
    # "" = about the agent itself; otherwise the person (or thing) the block describes.
    subject = models.CharField(max_length=200, blank=True, default="", validators=[validate_label])
    name = models.CharField(max_length=64, validators=[validate_block_name])
    value = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["agent_id", "subject", "name"]
        constraints = [models.UniqueConstraint(fields=["agent", "subject", "name"], name="core_block_unique_name")]

    def __str__(self) -> str:
        who = f" about {self.subject}" if self.subject else ""
        return f"{self.agent_id}: {self.name}{who}"


class CoreEvent(models.Model):
    """One change to a core block: the whole value before and after, so any change can be undone."""

    ACTIONS = [(a, a) for a in ("replace", "append", "undo", "review_edit", "import")]

    block = models.ForeignKey(CoreBlock, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=20, choices=ACTIONS)
    path = models.CharField(max_length=300, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    actor = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    # Set when this change was undone (by the "undo" event named here).
    undone_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.action} {self.path or '(whole block)'} by {self.actor}"


class Fact(CheckedIds, models.Model):
    """subject –relation→ object, true from ``valid_from`` until ``invalid_at`` (Zep/Graphiti's bi-temporal edge, simplified)."""

    ID_FIELDS = {"agent_id": check_agent_id}

    ORIGINS = [(o, o) for o in ("llm", "offline", "manual", "import")]

    agent_id = models.CharField(max_length=64, db_index=True)
    subject = models.CharField(max_length=200)
    relation = models.CharField(max_length=64)
    object = models.CharField(max_length=200)
    # Lower-cased forms: entity look-ups and the contradiction rule ignore case.
    subject_key = models.CharField(max_length=200, db_index=True, editable=False)
    object_key = models.CharField(max_length=200, db_index=True, editable=False)
    valid_from = models.DateTimeField(null=True, blank=True)
    invalid_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Ids of the notes the fact was read from ([] for a manual fact without sources).
    sources = models.JSONField(default=list, blank=True)
    origin = models.CharField(max_length=10, choices=ORIGINS, default="manual")
    # The fact that replaced this one (a contradicting newer fact), if any.
    superseded_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["agent_id", "subject_key", "relation"], name="fact_agent_subject_idx")]

    def __str__(self) -> str:
        return f"{self.subject} {self.relation} {self.object}"

    def save(self, *args, **kwargs) -> None:
        self.subject_key = self.subject.casefold()
        self.object_key = self.object.casefold()
        super().save(*args, **kwargs)


class Episode(CheckedIds, models.Model):
    """A closed conversation session: its summary note and the turns it covers."""

    ID_FIELDS = {"agent_id": check_agent_id, "session": check_session}

    agent_id = models.CharField(max_length=64, db_index=True)
    session = models.CharField(max_length=200, validators=[validate_label])
    note = models.OneToOneField("memories.Note", on_delete=models.CASCADE, related_name="episode")
    turn_ids = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(db_index=True)
    # "explicit" (POST /episodes/close), "idle" (the idle job) or "import".
    closed_by = models.CharField(max_length=20, default="explicit")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-ended_at", "-id"]

    def __str__(self) -> str:
        return f"{self.agent_id} session {self.session} ({len(self.turn_ids)} turns)"
