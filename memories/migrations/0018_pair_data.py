"""One ``Pair`` for everything waiting for a person (issue 41), step 2 of 3: the data.

Before, a conflict was a ``ConflictPair`` row whose open state was copied onto both notes
(``conflict``, ``conflict_reason``), and a pending merge was six fields on the newer note
(``pending_merge``, ``merge_candidate``, ``merge_similarity``, ``merge_guess``, ``merge_reason``).
Now both are rows of one table, ``Pair`` (kind ``conflict`` or ``merge``); a note waits when it
is in an open pair.

Forward: ``ConflictPair`` becomes ``Pair`` (``note_a`` the newer, ``note_b`` the older, as the
write path recorded them); every pending merge becomes an open merge pair with its similarity,
guess and reason; a note whose candidate the pending-merge job had cleared (its model said
"distinct", or it opened a conflict) becomes a decided merge pair, so the sweep never offers
it again, as before. A note flagged ``conflict`` without an open pair (an import's flag with no
partner) keeps its reason in a history event. Backward puts every open pair's state back on
its notes.
"""

from django.db import migrations
from django.db.models import Q
from django.utils import timezone

MIGRATION_ACTOR = "migration:0018_pair_data"


def forward(apps, schema_editor):
    Note = apps.get_model("memories", "Note")
    Pair = apps.get_model("memories", "Pair")
    NoteEvent = apps.get_model("memories", "NoteEvent")
    known = {frozenset(p) for p in Pair.objects.values_list("older_id", "newer_id")}
    flagged = Note.objects.filter(merge_candidate__isnull=False).order_by("created_at", "pk")
    made = []
    for note in flagged.iterator(chunk_size=1000):
        key = frozenset((note.merge_candidate_id, note.pk))
        if key in known or note.merge_candidate_id == note.pk:
            continue  # a conflict of the same two notes already says it
        known.add(key)
        waiting = note.pending_merge
        made.append(
            Pair(
                kind="merge",
                older_id=note.merge_candidate_id,
                newer_id=note.pk,
                similarity=note.merge_similarity,
                guess=note.merge_guess,
                reason=note.merge_reason,
                opened_by="",
                status="open" if waiting else "resolved",
                resolution="" if waiting else "distinct",
                resolved_by="" if waiting else MIGRATION_ACTOR,
                resolved_at=None if waiting else timezone.now(),
                created_at=note.created_at,
            )
        )
    Pair.objects.bulk_create(made, batch_size=500)
    open_pairs = Pair.objects.filter(status="open", kind="conflict")
    in_open = Q(pk__in=open_pairs.values("older_id")) | Q(pk__in=open_pairs.values("newer_id"))
    orphans = Note.objects.filter(conflict=True).exclude(in_open)
    NoteEvent.objects.bulk_create(
        [
            NoteEvent(
                note_id=note.pk,
                action="flag",
                before={"conflict": True, "conflict_reason": note.conflict_reason},
                after={"reason": "a conflict flag without a pair to decide: dropped by the move to one pair store"},
                actor=MIGRATION_ACTOR,
            )
            for note in orphans.only("pk", "conflict_reason")
        ],
        batch_size=500,
    )


def backward(apps, schema_editor):
    Note = apps.get_model("memories", "Note")
    Pair = apps.get_model("memories", "Pair")
    for pair in Pair.objects.filter(kind="merge").order_by("created_at", "pk").iterator(chunk_size=1000):
        Note.objects.filter(pk=pair.newer_id).update(
            pending_merge=pair.status == "open",
            merge_candidate_id=pair.older_id,
            merge_similarity=pair.similarity,
            merge_guess=pair.guess,
            merge_reason=pair.reason,
        )
    for pair in Pair.objects.filter(kind="conflict", status="open").iterator(chunk_size=1000):
        Note.objects.filter(pk__in=(pair.older_id, pair.newer_id)).update(conflict=True, conflict_reason=pair.reason)
    Pair.objects.filter(kind="merge").delete()


class Migration(migrations.Migration):
    dependencies = [("memories", "0017_pair")]
    operations = [migrations.RunPython(forward, backward)]
