"""A decided conflict records the pair flow's decision (same, replace, both, unrelated), the
vocabulary of both review queues, instead of the older choices (keep_a, keep_b, keep_both,
not_related, merge). ``superseded`` still names the note a "replace" retired."""

from django.db import migrations

FORWARD = {"keep_a": "replace", "keep_b": "replace", "keep_both": "both", "not_related": "unrelated", "merge": "same"}
BACK = {"both": "keep_both", "unrelated": "not_related", "same": "merge"}


def forward(apps, schema_editor):
    ConflictPair = apps.get_model("memories", "ConflictPair")
    for old, new in FORWARD.items():
        ConflictPair.objects.filter(resolution=old).update(resolution=new)


def backward(apps, schema_editor):
    ConflictPair = apps.get_model("memories", "ConflictPair")
    for new, old in BACK.items():
        ConflictPair.objects.filter(resolution=new).update(resolution=old)
    # "replace" kept the side that was not superseded: keep_a when B was retired, else keep_b.
    replaced = ConflictPair.objects.filter(resolution="replace")
    for pair in replaced.only("pk", "note_b_id", "superseded_id"):
        keep = "keep_a" if pair.superseded_id == pair.note_b_id else "keep_b"
        ConflictPair.objects.filter(pk=pair.pk).update(resolution=keep)


class Migration(migrations.Migration):
    dependencies = [("memories", "0014_quality_scored_revision")]
    operations = [migrations.RunPython(forward, backward)]
