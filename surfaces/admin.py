"""Django admin: agents, keys, notes and their access fields, history, jobs.

Editing a note here marks it for re-indexing in the same transaction and
appends an ``admin_edit`` event, so the index and the history stay true.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.utils import timezone

from memories.models import (
    Agent,
    ApiKey,
    CoreBlock,
    CoreEvent,
    Episode,
    Erasure,
    Fact,
    Gateway,
    GatewayAgent,
    GatewayKey,
    JobRun,
    Link,
    LlmCall,
    Note,
    NoteEvent,
    Pair,
)
from memories.models.keys import BearerKey

# Fields whose change must reach the index (its payload or its vectors).
INDEXED_FIELDS = (
    "content",
    "keywords",
    "tags",
    "context",
    "category",
    "note_type",
    "topics",
    "owner",
    "readers",
    "writers",
    "subjects",
    "is_active",
    "agent_id",
)


def _erase_after_confirming(modeladmin, request, queryset, *, what: str, erase) -> TemplateResponse | None:
    """An admin action that erases: the first click shows what will go and asks again (irreversible)."""
    if request.POST.get("erase_confirmed") != "yes":
        return TemplateResponse(
            request,
            "admin/memories/erase_confirmation.html",
            {
                **modeladmin.admin_site.each_context(request),
                "title": f"Erase {what} permanently?",
                "objects": list(queryset),
                "action": request.POST.get("action"),
                "what": what,
                "opts": modeladmin.model._meta,
            },
        )
    actor = f"admin:{request.user.get_username()}"
    done = [erase(obj, actor) for obj in queryset]
    modeladmin.message_user(
        request, f"Erased {len(done)} {what}: audit record(s) {', '.join(str(e.pk) for e in done)}.", messages.WARNING
    )
    return None


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows only the engine writes: shown here, never added, changed or deleted by hand."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class KeyInline(admin.TabularInline):
    """A key holder's keys (memories/models/keys.py): read here, revoked here, never added here."""

    extra = 0
    fields = ("prefix", "name", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "created_at", "last_used_at")
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        # Keys are issued with the "issue a key" action so the raw key can be shown once.
        return False


class ApiKeyInline(KeyInline):
    model = ApiKey


class KeyOwnerAdmin(admin.ModelAdmin):
    """A holder of bearer keys (agent, gateway): its "issue a key" action shows the raw key once."""

    key_model: type[BearerKey]
    key_owner: str  # how the message names the holder

    @admin.action(description="Issue a new key (shown once)")
    def issue_key(self, request, queryset):
        for owner in queryset:
            _, raw = self.key_model.issue(owner, name=f"admin:{request.user.get_username()}")
            self.message_user(
                request,
                f"New key for {self.key_owner} {owner.pk}: {raw} — copy it now, it is not stored.",
                messages.WARNING,
            )


class KeyAdmin(admin.ModelAdmin):
    """A list of one kind of bearer key; each is issued by its holder's "issue a key" action, so none is added here."""

    list_filter = ("revoked_at",)
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Revoke selected keys")
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {count} key(s).")


@admin.register(Agent)
class AgentAdmin(KeyOwnerAdmin):
    key_model = ApiKey
    key_owner = "agent"
    list_display = ("id", "name", "collection", "is_active", "last_write_at", "created_at")
    list_filter = ("is_active",)
    search_fields = ("id", "name")
    inlines = [ApiKeyInline]
    actions = ["issue_key", "erase_agents"]
    filter_horizontal = ("reviewers",)  # the review app's grant (docs/review.md)

    def get_readonly_fields(self, request, obj=None):
        return ("created_at", "last_write_at", "link_write_count") + (("id",) if obj else ())

    @admin.action(description="Erase selected agents' whole memory (irreversible)")
    def erase_agents(self, request, queryset):
        from engine import erasure

        return _erase_after_confirming(
            self, request, queryset, what="agent(s)", erase=lambda a, actor: erasure.erase_agent(a, actor=actor)
        )

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "collection" in form.changed_data:
            # Its notes move to another index collection: rebuild them there.
            Note.objects.filter(agent_id=obj.pk).mark_dirty()
            self.message_user(request, "The agent's notes are marked for re-indexing; run manage.py amem_reindex.")


@admin.register(ApiKey)
class ApiKeyAdmin(KeyAdmin):
    list_display = ("prefix", "agent", "name", "created_at", "last_used_at", "revoked_at")
    search_fields = ("prefix", "agent__id", "name")
    readonly_fields = ("prefix", "agent", "created_at", "last_used_at", "revoked_at")
    fields = ("agent", "prefix", "name", "created_at", "last_used_at", "revoked_at")


class LinkInline(admin.TabularInline):
    model = Link
    fk_name = "source"
    extra = 0
    raw_id_fields = ("target",)
    readonly_fields = ("created_at", "created_by")


class EventInline(admin.TabularInline):
    model = NoteEvent
    extra = 0
    can_delete = False
    readonly_fields = ("action", "actor", "created_at", "before", "after")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Note)
class NoteAdmin(admin.ModelAdmin):
    list_display = ("short", "agent_id", "owner", "category", "note_type", "is_active", "index_dirty", "created_at")
    list_filter = ("is_active", "note_type", "category", "index_dirty", "low_quality")
    search_fields = ("content", "agent_id", "owner")
    readonly_fields = (
        "id",
        "content_hash",
        "embedding_model",
        "retrieval_count",
        "last_accessed",
        "revision",
        "index_dirty",
        "indexed_at",
        "updated_at",
    )
    raw_id_fields = ("merged_into",)
    inlines = [LinkInline, EventInline]
    actions = ["erase_notes"]

    @admin.action(description="Erase selected notes (irreversible: text, vectors and history content)")
    def erase_notes(self, request, queryset):
        from engine import erasure

        return _erase_after_confirming(
            self,
            request,
            queryset.filter(erased_at__isnull=True),
            what="note(s)",
            erase=lambda n, actor: erasure.erase_note(n.pk, None, actor=actor),
        )

    @admin.display(description="content")
    def short(self, obj: Note) -> str:
        return obj.content[:80]

    def save_model(self, request, obj, form, change):
        changed = [f for f in form.changed_data if f in INDEXED_FIELDS]
        if change and changed:
            before = {f: form.initial.get(f) for f in changed}
            if "content" in changed:
                from engine.text import content_hash

                obj.content_hash = content_hash(obj.content)
                obj.embedding = None  # re-embedded by the indexer
            obj.mark_dirty()
            super().save_model(request, obj, form, change)
            NoteEvent.objects.create(
                note=obj,
                action="admin_edit",
                before=before,
                after={f: form.cleaned_data.get(f) for f in changed},
                actor=f"admin:{request.user.get_username()}",
            )
            from engine.index_sync import outbox  # imported here: commands load the admin, and need not load the engine

            outbox.sync_after_commit([obj.pk])
        else:
            super().save_model(request, obj, form, change)


@admin.register(NoteEvent)
class NoteEventAdmin(admin.ModelAdmin):
    list_display = ("note", "action", "actor", "created_at")
    list_filter = ("action",)
    readonly_fields = ("note", "action", "before", "after", "actor", "created_at")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Link)
class LinkAdmin(admin.ModelAdmin):
    list_display = ("source", "target", "created_by", "created_at")
    raw_id_fields = ("source", "target")


@admin.register(Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = ("kind", "older", "newer", "status", "resolution", "likelihood", "created_at")
    list_filter = ("kind", "status", "opened_by")
    raw_id_fields = ("older", "newer", "superseded")


@admin.register(JobRun)
class JobRunAdmin(admin.ModelAdmin):
    list_display = ("job", "agent_id", "outcome", "started_at", "finished_at")
    list_filter = ("job", "outcome")


@admin.register(LlmCall)
class LlmCallAdmin(admin.ModelAdmin):
    list_display = ("role", "tier", "model", "tokens_in", "tokens_out", "latency_ms", "outcome", "created_at")
    list_filter = ("role", "tier", "outcome")


# --- memory layers (docs/memory-layers.md) ------------------------------------------------


class CoreEventInline(admin.TabularInline):
    model = CoreEvent
    extra = 0
    fields = ("created_at", "action", "path", "actor", "before", "after", "undone_by")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # history is written by the engine only


@admin.register(CoreBlock)
class CoreBlockAdmin(admin.ModelAdmin):
    """Blocks are read here; edits go through the review app's core-memory page, which keeps the history."""

    list_display = ("agent", "subject", "name", "updated_at")
    list_filter = ("agent",)
    search_fields = ("name", "subject")
    readonly_fields = ("agent", "subject", "name", "value", "created_at", "updated_at")
    inlines = [CoreEventInline]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Fact)
class FactAdmin(ReadOnlyAdmin):
    """Read-only (docs/memory-layers.md): facts come from notes through the engine, which keeps an
    agent and a normalised relation on each; an admin-made fact would have neither."""

    list_display = ("agent_id", "subject", "relation", "object", "valid_from", "invalid_at", "origin")
    list_filter = ("origin", "relation")
    search_fields = ("subject", "object", "agent_id")
    readonly_fields = ("agent_id", "sources", "origin", "superseded_by", "created_at", "subject_key", "object_key")


@admin.register(Episode)
class EpisodeAdmin(admin.ModelAdmin):
    list_display = ("agent_id", "session", "ended_at", "closed_by")
    search_fields = ("agent_id", "session")
    readonly_fields = ("agent_id", "session", "note", "turn_ids", "started_at", "ended_at", "closed_by", "created_at")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Erasure)
class ErasureAdmin(ReadOnlyAdmin):
    """The audit of erasures: who, when, what scope, how many rows; no content to show."""

    list_display = ("created_at", "scope", "agent_id", "actor", "counts")
    list_filter = ("scope",)


class GatewayKeyInline(KeyInline):
    model = GatewayKey


class GatewayAgentInline(admin.TabularInline):
    model = GatewayAgent
    extra = 0
    fields = ("agent", "created_at")
    readonly_fields = ("agent", "created_at")
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # made by the gateway's first request for the agent (surfaces/gateways.py)


@admin.register(Gateway)
class GatewayAdmin(KeyOwnerAdmin):
    """A gateway key acts for the agents under its prefix, creating them on first use (docs/api.md)."""

    key_model = GatewayKey
    key_owner = "gateway"

    list_display = ("prefix", "name", "is_active", "created_at")
    list_filter = ("is_active",)
    search_fields = ("prefix", "name")
    inlines = [GatewayKeyInline, GatewayAgentInline]
    actions = ["issue_key"]

    def get_readonly_fields(self, request, obj=None):
        # The prefix decides which agents are the gateway's: it never changes once agents exist.
        return ("created_at",) + (("prefix",) if obj else ())


@admin.register(GatewayKey)
class GatewayKeyAdmin(KeyAdmin):
    list_display = ("prefix", "gateway", "name", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "gateway", "created_at", "last_used_at", "revoked_at")
    fields = ("gateway", "prefix", "name", "created_at", "last_used_at", "revoked_at")
