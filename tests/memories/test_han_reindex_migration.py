"""Migration 0021: notes with Han text are written to the index again (their BM25 weights changed); others are not."""

from __future__ import annotations

import pytest

from testsupport.migrations import migrate

pytestmark = pytest.mark.usefixtures("latest_schema_after")

BEFORE = [("memories", "0020_note_quality_likelihood")]
AFTER = [("memories", "0021_han_notes_reindexed")]


@pytest.mark.django_db(transaction=True)
def test_notes_with_han_text_are_marked_for_the_outbox_and_the_rest_stay_clean():
    apps = migrate(BEFORE)
    agent = apps.get_model("memories", "Agent").objects.create(id="mig-han")
    note_model = apps.get_model("memories", "Note")

    def note(key: str, content: str, context: str = ""):
        return note_model.objects.create(
            agent_id=agent.pk, owner=agent.pk, content=content, context=context, content_hash=key, index_dirty=False
        ).pk

    han = note("zh", "我最喜欢的颜色是蓝色")
    mixed = note("mixed", "Lunch at 老王 noodles on Friday")
    han_context = note("ctx", "Yes, every week.", context="你还去游泳吗？")
    english = note("en", "Melanie painted a sunrise over the lake")

    apps = migrate(AFTER)
    dirty = dict(apps.get_model("memories", "Note").objects.values_list("pk", "index_dirty"))
    assert {k: dirty[k] for k in (han, mixed, han_context, english)} == {
        han: True,
        mixed: True,
        han_context: True,
        english: False,
    }
