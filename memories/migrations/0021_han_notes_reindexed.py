"""Han terms saturate later in BM25 (engine/index/store.py: HAN_SATURATION): the index's stored
weights of notes with Han text were made with the old rule, so the outbox writes them again
(from their stored vectors: tokenizing, no embedding). Other notes' weights are unchanged."""

from django.db import migrations
from django.db.models import Q

# The Han ranges of engine/index/tokenize.py's _HAN, copied rather than imported (a migration must
# mean the same when that module changes), as characters both databases' regex accepts.
HAN = "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"


def mark_han_notes(apps, schema_editor):
    Note = apps.get_model("memories", "Note")
    Note.objects.filter(
        Q(content__regex=HAN) | Q(context__regex=HAN), index_dirty=False, erased_at__isnull=True
    ).update(index_dirty=True)


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0020_note_quality_likelihood"),
    ]

    operations = [migrations.RunPython(mark_han_notes, migrations.RunPython.noop)]
