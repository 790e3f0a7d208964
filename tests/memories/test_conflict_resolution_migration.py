"""Migration 0015: decided conflicts keep their meaning in the pair flow's one vocabulary, both ways."""

from __future__ import annotations

import pytest

from testsupport.migrations import migrate

pytestmark = pytest.mark.usefixtures("latest_schema_after")

BEFORE = [("memories", "0014_quality_scored_revision")]
AFTER = [("memories", "0015_conflict_resolution_decisions")]


@pytest.mark.django_db(transaction=True)
def test_old_resolutions_become_the_pair_flows_decisions_and_come_back():
    apps = migrate(BEFORE)
    agent = apps.get_model("memories", "Agent").objects.create(id="mig")
    note_model = apps.get_model("memories", "Note")
    pair_model = apps.get_model("memories", "ConflictPair")

    def note(i: int):
        return note_model.objects.create(agent_id=agent.pk, owner=agent.pk, content=f"note {i}", content_hash=f"h{i}")

    old = {}
    for i, resolution in enumerate(["keep_a", "keep_b", "keep_both", "not_related", "merge", "auto_retired", ""]):
        a, b = note(2 * i), note(2 * i + 1)
        superseded = {"keep_a": b, "keep_b": a}.get(resolution)
        old[resolution] = pair_model.objects.create(
            note_a=a,
            note_b=b,
            resolution=resolution,
            superseded=superseded,
            status="resolved" if resolution else "open",
        ).pk

    apps = migrate(AFTER)
    now = dict(apps.get_model("memories", "ConflictPair").objects.values_list("pk", "resolution"))
    assert {r: now[pk] for r, pk in old.items()} == {
        "keep_a": "replace",
        "keep_b": "replace",
        "keep_both": "both",
        "not_related": "unrelated",
        "merge": "same",
        "auto_retired": "auto_retired",
        "": "",
    }

    apps = migrate(BEFORE)
    back = dict(apps.get_model("memories", "ConflictPair").objects.values_list("pk", "resolution"))
    assert {r: back[pk] for r, pk in old.items()} == {r: r for r in old}
