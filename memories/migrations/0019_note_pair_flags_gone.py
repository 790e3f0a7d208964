"""One ``Pair`` for everything waiting for a person (issue 41), step 3 of 3: the note fields that
copied a pair's state (``pending_merge``, ``merge_candidate``, ``merge_similarity``, ``merge_guess``,
``merge_reason``, ``conflict``, ``conflict_reason``) go; whether a note waits is read from its pairs."""

from django.db import migrations

NOTE_FIELDS = (
    "pending_merge",
    "merge_candidate",
    "merge_similarity",
    "merge_guess",
    "merge_reason",
    "conflict",
    "conflict_reason",
)


class Migration(migrations.Migration):
    dependencies = [("memories", "0018_pair_data")]
    operations = [migrations.RemoveField("note", name) for name in NOTE_FIELDS]
