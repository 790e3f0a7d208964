"""The system of record: agents, keys, notes, links, history, pairs waiting for a person, jobs.

The SQL database owns every fact; Qdrant is an index derived from it
(docs/architecture.md §2). Nothing here is hard-deleted by the engine's own decisions: a
note is retired with ``is_active=False``. The one exception is erasure, asked for by a
person (engine/erasure.py): the note's row stays as a content-free tombstone (``erased_at``).
"""

from __future__ import annotations

import hashlib
import uuid

from django.conf import settings
from django.db import models
from django.db.models import F
from django.utils import timezone

from memories.ids import (
    CheckedIds,
    check_agent_id,
    check_collection,
    check_label,
    check_labels,
    validate_agent_id,
    validate_collection,
    validate_label,
)
from memories.models.keys import BearerKey

SHARED_AGENT = "shared"
EVERYONE = "*"

CATEGORIES = ["Technical", "Business", "Personal", "Project", "Research", "System", "General"]
CATEGORY_CHOICES = [(c, c) for c in CATEGORIES]


class Agent(CheckedIds, models.Model):
    """An agent that owns memories. ``collection`` set = Mode B (its own index)."""

    # Both become file names (exports, index folders): memories/ids.py checks them on every way in.
    ID_FIELDS = {"id": check_agent_id, "collection": check_collection}
    OPTIONAL_IDS = frozenset({"collection"})

    id = models.CharField(primary_key=True, max_length=64, validators=[validate_agent_id])
    name = models.CharField(max_length=200, blank=True)
    collection = models.CharField(
        max_length=64,
        blank=True,
        validators=[validate_collection],
        help_text="Mode B: a dedicated index collection for this agent. Blank = the shared index (Mode A).",
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    # Set on every write; the nightly jobs only visit agents that wrote since their last run.
    last_write_at = models.DateTimeField(null=True, blank=True)
    # Writes that produced links; evolution runs on every N-th (docs/architecture.md §3), counted atomically here.
    link_write_count = models.PositiveIntegerField(default=0)
    # People (not staff: staff see every agent) who may review this agent's memories at /review/.
    reviewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="review_agents",
        help_text="Users who may review this agent's memories in the review app (staff see all agents).",
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.id

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if self.id == SHARED_AGENT:
            raise ValidationError({"id": "'shared' is reserved for shared-scope notes."})


class ApiKey(BearerKey):
    """A bearer key for one agent (memories/models/keys.py)."""

    OWNER = "agent"
    RAW_START = "amem_"

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="keys")

    class Meta(BearerKey.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.agent_id})"


class NoteQuerySet(models.QuerySet["Note"]):
    def active(self) -> NoteQuerySet:
        return self.filter(is_active=True)

    def dirty(self) -> NoteQuerySet:
        return self.filter(index_dirty=True)

    def mark_dirty(self) -> int:
        """Mark these notes for re-indexing in one UPDATE by the set's own condition, not by a
        list of ids: a list of every note of a large store passes SQLite's limit on variables
        (at 328,000 notes a rebuild failed with "too many SQL variables")."""
        return self.update(index_dirty=True, revision=F("revision") + 1)

    def waiting(self, kind: str | None = None, *, as_newer: bool = False) -> NoteQuerySet:
        """Notes in an open pair (of ``kind``; ``as_newer``: as its newer note): read from the
        pairs, the one record of what waits for a person."""
        return self.filter(waiting_q(kind, as_newer=as_newer))


def waiting_q(kind: str | None = None, *, as_newer: bool = False) -> models.Q:
    """The condition ``NoteQuerySet.waiting`` filters on, to combine or negate."""
    pairs = Pair.objects.open()
    if kind:
        pairs = pairs.of_kind(kind)
    newer = models.Q(pk__in=pairs.values("newer_id"))
    return newer if as_newer else newer | models.Q(pk__in=pairs.values("older_id"))


def _note_agent(value: str) -> str:
    return value if value == SHARED_AGENT else check_agent_id(value)


def _subjects(values: list[str]) -> list[str]:
    return check_labels(values or [], "subject")


def _session(value: str) -> str:
    return check_label(value, "session")


class Note(CheckedIds, models.Model):
    """One memory. Every field of docs/architecture.md §2–§3."""

    ID_FIELDS = {"agent_id": _note_agent, "owner": check_agent_id, "subjects": _subjects, "session": _session}
    OPTIONAL_IDS = frozenset({"session"})

    MEMORY = "memory"
    KNOWLEDGE = "knowledge"
    NOTE_TYPES = [(MEMORY, "memory"), (KNOWLEDGE, "knowledge")]
    EVOLUTION_TYPES = [(v, v) for v in ("EVOLVE", "CONFLICT", "EXPAND", "NEW")]

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The agent whose memory this is, or "shared" for scope=shared notes.
    agent_id = models.CharField(max_length=64, db_index=True)

    content = models.TextField()
    # sha256 of the normalised text (engine/text.py): L1 dedup key.
    content_hash = models.CharField(max_length=64, db_index=True)
    # The L1 claim of a note written by add_memory: sha256 of its content hash and subjects.
    # Unique among an agent's active notes (constraint below), so of two concurrent writes of
    # the same text one inserts and the other is answered "duplicate". Dropped by save() once
    # the note is retired or its text or subjects change: it then no longer holds that text.
    # NULL, not "": NULLs never clash in a unique constraint, on SQLite and PostgreSQL alike.
    write_key = models.CharField(max_length=64, null=True, blank=True, editable=False)  # noqa: DJ001
    keywords = models.JSONField(default=list, blank=True)
    tags = models.JSONField(default=list, blank=True)
    context = models.TextField(blank=True)
    category = models.CharField(max_length=20, choices=CATEGORY_CHOICES, default="General")
    note_type = models.CharField(max_length=10, choices=NOTE_TYPES, default=MEMORY)
    topics = models.JSONField(default=list, blank=True)
    confidence = models.CharField(max_length=10, blank=True)

    # Access (docs/architecture.md §3): owner always may; "*" in a list means everyone.
    owner = models.CharField(max_length=64, db_index=True)
    readers = models.JSONField(default=list, blank=True)
    writers = models.JSONField(default=list, blank=True)
    # Who the memory is about; [] = a world fact visible under every subject.
    subjects = models.JSONField(default=list, blank=True)
    # Caller-supplied message ids this memory came from; merges keep the union.
    sources = models.JSONField(default=list, blank=True)
    # Caller-supplied key/values (what mem0 clients send as ``metadata``): kept, filtered on, exported,
    # emptied by an erasure; amem's own logic never reads them.
    metadata = models.JSONField(default=dict, blank=True)

    # float32 bytes of the normalised embedding of the note's embedding text.
    embedding = models.BinaryField(null=True, blank=True, editable=False)
    embedding_model = models.CharField(max_length=200, blank=True, editable=False)

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_accessed = models.DateTimeField(null=True, blank=True)
    retrieval_count = models.PositiveIntegerField(default=0)
    # 1–10, rated at write (engine/annotations/importance.py); None = written before ratings existed.
    importance = models.PositiveSmallIntegerField(null=True, blank=True)
    # The conversation session a turn belongs to ("" = not a turn); episodes close sessions.
    session = models.CharField(max_length=200, blank=True, db_index=True, validators=[validate_label])
    # "episode" / "reflection" for notes the memory layers wrote; "" for everything else.
    layer = models.CharField(max_length=20, blank=True, db_index=True)

    is_active = models.BooleanField(default=True, db_index=True)
    # Set when the note was erased (engine/erasure.py): the row is a tombstone without text or
    # vector, never restored, never indexed; its audit record is an Erasure row.
    erased_at = models.DateTimeField(null=True, blank=True, editable=False)
    ephemeral = models.BooleanField(default=False)
    low_quality = models.BooleanField(default=False)
    low_quality_reasons = models.JSONField(default=list, blank=True)
    # The revision the quality model last read (engine/judgments/note_quality.py) and the likelihood
    # it gave; the nightly scan reads only notes whose text may have changed since, and a likely one
    # waits with its likelihood until it fits a night's ``quality_budget`` (maintenance/quality.py).
    quality_scored_revision = models.PositiveIntegerField(null=True, blank=True, editable=False)
    quality_likelihood = models.FloatField(null=True, blank=True, editable=False)
    # The revision at which a merge job's model judged this note distinct from a similar one;
    # such a pair is not offered again until one of its notes changes (engine/maintenance/merge.py).
    merge_checked_revision = models.PositiveIntegerField(null=True, blank=True, editable=False)
    evolution_type = models.CharField(max_length=10, choices=EVOLUTION_TYPES, blank=True)
    conflict_scanned_at = models.DateTimeField(null=True, blank=True)
    # When the offline pair sweep first left this note's pair for a later night (over budget);
    # after ``sweep_window_days`` of that the pair is dropped (engine/maintenance/pair_sweep.py).
    sweep_deferred_since = models.DateTimeField(null=True, blank=True, editable=False)
    merged_into = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    # Outbox (docs/architecture.md §2): set in the same transaction as any indexed change,
    # cleared by the indexer only if ``revision`` did not move meanwhile.
    index_dirty = models.BooleanField(default=True)
    revision = models.PositiveIntegerField(default=0)
    indexed_at = models.DateTimeField(null=True, blank=True)
    # BM25 terms the index holds for the note (its context not counted): its share of the agent's
    # average length (engine/index_sync/lexical_length.py). None: not indexed since this was kept.
    lexical_length = models.PositiveIntegerField(null=True, blank=True, editable=False)

    objects = NoteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # engine/index_sync/indexer.py walks the dirty notes in this order from a cursor.
            models.Index(
                fields=["updated_at", "id"], name="note_dirty_order_idx", condition=models.Q(index_dirty=True)
            ),
            # L1 dedup looks up a hash among an agent's active notes.
            models.Index(fields=["agent_id", "content_hash"], name="note_agent_hash_idx"),
            # Nightly jobs walk an agent's active notes by day.
            models.Index(fields=["agent_id", "is_active", "created_at"], name="note_agent_active_idx"),
        ]
        constraints = [
            # L1 dedup under concurrency (docs/architecture.md §3); NULL keys (episodic, imported, edited) never clash.
            models.UniqueConstraint(
                fields=["agent_id", "write_key"],
                condition=models.Q(is_active=True),
                name="note_unique_active_write_key",
            ),
        ]

    def __str__(self) -> str:
        return self.content[:80]

    def save(self, *args, **kwargs) -> None:
        if self.write_key and (
            not self.is_active or self.write_key != self.exact_key(self.content_hash, self.subjects)
        ):
            self.write_key = None  # retired or rewritten: the claim on the old text is released
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "write_key"}
        super().save(*args, **kwargs)

    @staticmethod
    def exact_key(content_hash: str, subjects) -> str:
        """The L1 identity of a text: its normalised hash and who it is about (order-free)."""
        return hashlib.sha256(f"{content_hash}|{sorted(subjects or [])!r}".encode()).hexdigest()

    def mark_dirty(self) -> None:
        """Flag for re-indexing; call before ``save()`` inside the write's transaction."""
        self.index_dirty = True
        self.revision = (self.revision or 0) + 1


class Link(models.Model):
    """A directed edge; a bidirectional link is two rows (back-links need write access)."""

    source = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="out_links")
    target = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="in_links")
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.CharField(max_length=64, blank=True)
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "target"], name="link_unique_pair"),
            models.CheckConstraint(condition=~models.Q(source=F("target")), name="link_no_self"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} → {self.target_id}"


class NoteEvent(models.Model):
    """Append-only history of a note: what changed, who did it, when."""

    ACTIONS = [
        (a, a)
        for a in (
            "create",
            "fold",
            "update_neighbor",
            "strengthen",
            "link",
            "consolidate",
            "crud_update",
            "retire",
            "restore",
            "flag",
            "review",
            "admin_edit",
            "import",
            "episode",
            "reflection",
            "erase",
            "metadata",
        )
    ]

    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=20, choices=ACTIONS)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    actor = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.action} by {self.actor}"


class PairQuerySet(models.QuerySet["Pair"]):
    def open(self) -> PairQuerySet:
        return self.filter(status=Pair.OPEN)

    def of_kind(self, kind: str) -> PairQuerySet:
        return self.filter(kind=kind)

    def between(self, a: Note, b: Note) -> PairQuerySet:
        """The pair of these two notes, in either order."""
        return self.filter(models.Q(older=a, newer=b) | models.Q(older=b, newer=a))

    def touching(self, note_ids) -> PairQuerySet:
        return self.filter(models.Q(older_id__in=note_ids) | models.Q(newer_id__in=note_ids))


class Pair(models.Model):
    """Two notes waiting for a person's decision (or decided): one place for both review queues.

    ``kind`` says which queue shows it: ``merge`` (they may say one fact, or the newer may
    change the older: the machine is unsure) or ``conflict`` (the newer likely replaces the
    older). ``newer`` is the note that was compared against ``older``, already stored when the
    pair was found (a dated write may give it the earlier date: the card orders by date).
    A note may sit in several open pairs; whether a note waits is read from here, never copied
    onto the note. Decisions (engine/curation/actions.py) close the pair with a ``resolution``.
    """

    MERGE, CONFLICT = "merge", "conflict"
    KINDS = [(MERGE, "may be one fact"), (CONFLICT, "may have changed")]
    OPEN, RESOLVED = "open", "resolved"
    STATUSES = [(OPEN, "open"), (RESOLVED, "resolved")]

    older = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    newer = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=KINDS, default=CONFLICT, db_index=True)
    # The machine's best guess about the pair and why, in plain words (engine/judgments/triage.py):
    # "same" fact, a "change" (the newer may replace the older) or "both" true; a person decides.
    # Empty for pairs flagged before the guess existed.
    guess = models.CharField(max_length=10, blank=True)
    reason = models.TextField(blank=True)
    # How likely the pair is a real change (0–1, the offline judge's score; the conflict queue shows
    # the likeliest first) and how alike the two texts were when the pair was found (cosine).
    likelihood = models.FloatField(null=True, blank=True)
    similarity = models.FloatField(null=True, blank=True)
    # Who opened it: "rules" (offline), "facts" (a single-valued fact closed), "model" (an LLM
    # judged it), "write" (a similar note waiting for the model's judge), "import".
    opened_by = models.CharField(max_length=10, blank=True)
    # The version of the judge's weights that scored the pair (engine/judgments/pair_weights.py).
    model_version = models.CharField(max_length=40, blank=True)
    superseded = models.ForeignKey(Note, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=STATUSES, default=OPEN, db_index=True)
    # The pair flow's decision (same, replace, both, unrelated: engine/curation/actions.py), or what a
    # machine decided: auto_retired (a model's verdict in auto mode), merged / distinct (the
    # pending-merge job's model).
    resolution = models.CharField(max_length=20, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=100, blank=True)

    objects = PairQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["older", "newer"], name="pair_unique_notes")]

    def __str__(self) -> str:
        return f"{self.kind} {self.older_id} / {self.newer_id} ({self.status})"


class JobRun(models.Model):
    """One run of a maintenance job for one agent (docs/architecture.md §6)."""

    job = models.CharField(max_length=50, db_index=True)
    agent_id = models.CharField(max_length=64, blank=True, db_index=True)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=20, default="running")
    counts = models.JSONField(default=dict, blank=True)
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.job} {self.agent_id or 'all agents'} {self.started_at:%Y-%m-%d %H:%M} ({self.outcome})"

    @property
    def duration_s(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class LlmCall(models.Model):
    """Accounting for one model call (engine/llm/client.py's record), for the dashboard."""

    role = models.CharField(max_length=30, db_index=True)
    tier = models.CharField(max_length=10)
    provider = models.CharField(max_length=20)
    model = models.CharField(max_length=200)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0)
    outcome = models.CharField(max_length=20)
    error = models.TextField(blank=True)
    agent_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.role} on {self.tier} ({self.outcome})"
