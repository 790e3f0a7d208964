"""One ``Pair`` for everything waiting for a person (issue 41), step 1 of 3: the table.

``ConflictPair`` becomes ``Pair`` (``note_a`` the newer, ``note_b`` the older, as the write path
recorded them), with a ``kind`` (conflict or merge), the machine's guess, the similarity and the
judge's version. 0018 moves the pending merges and conflict flags into it; 0019 drops the note
fields that copied them. Three migrations, because PostgreSQL refuses to change a table's schema
in the transaction that wrote rows with deferred foreign keys into it.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memories", "0016_note_sweep_deferred_since")]

    operations = [
        migrations.RemoveConstraint(model_name="conflictpair", name="conflict_unique_pair"),
        migrations.RenameModel("ConflictPair", "Pair"),
        migrations.RenameField("pair", "note_a", "newer"),
        migrations.RenameField("pair", "note_b", "older"),
        migrations.AddField(
            "pair",
            "kind",
            models.CharField(
                choices=[("merge", "may be one fact"), ("conflict", "may have changed")],
                db_index=True,
                default="conflict",
                max_length=10,
            ),
        ),
        migrations.AddField("pair", "guess", models.CharField(blank=True, max_length=10)),
        migrations.AddField("pair", "similarity", models.FloatField(blank=True, null=True)),
        migrations.AddField("pair", "model_version", models.CharField(blank=True, max_length=40)),
        migrations.AddConstraint(
            model_name="pair", constraint=models.UniqueConstraint(fields=("older", "newer"), name="pair_unique_notes")
        ),
    ]
