"""POST /jobs/consolidate and /jobs/quality-scan: the maintenance jobs, now, on the caller's own notes only."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from memories.models import JobRun, Note
from tests.engine.maintenance.conftest import axis, near, put

JOB_FIELDS = {"job", "outcome", "counts", "detail", "items"}


def test_consolidate_merges_the_callers_similar_notes_and_leaves_other_agents_alone(as_alice, alice, bob, provider):
    provider.reply_json(
        {"should_merge": True, "merged": "Alice runs the Berlin marathon every year."}, role="should_merge"
    )
    provider.reply_json(
        {"keywords": ["marathon"], "tags": ["sport"], "context": "Alice's races.", "category": "Personal"},
        role="construct",
    )
    short = put(alice, "Alice runs the Berlin marathon.", axis(0))
    long = put(alice, "Alice runs the Berlin marathon each autumn.", near(0, 0.9, 1))
    bobs = (
        put(bob, "Bob runs the Berlin marathon.", axis(2)),
        put(bob, "Bob runs the Berlin marathon too.", near(2, 0.95, 3)),
    )
    response = as_alice.post("/jobs/consolidate")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == JOB_FIELDS
    assert (body["job"], body["outcome"], body["counts"]["merged"], body["items"]) == ("consolidation", "ok", 1, [])
    short.refresh_from_db()
    long.refresh_from_db()
    assert long.is_active and not short.is_active and short.merged_into_id == long.pk
    assert all(Note.objects.get(pk=n.pk).is_active for n in bobs)
    assert JobRun.objects.get(job="consolidation").agent_id == "alice"


def test_consolidate_with_nothing_to_merge_is_ok_and_changes_nothing(as_alice, alice):
    put(alice, "Alice prefers tea over coffee in the morning.", axis(0))
    body = as_alice.post("/jobs/consolidate").json()
    assert body["outcome"] == "ok" and body["counts"].get("merged", 0) == 0
    assert Note.objects.filter(is_active=True).count() == 1


def test_quality_scan_flags_and_lists_only_the_callers_notes(as_alice, alice, bob):
    short = put(alice, "ok")
    expired = put(
        alice, "Deploy is pending confirmation from ops", ephemeral=True, created_at=timezone.now() - timedelta(days=8)
    )
    fine = put(alice, "Alice has used Linux for twenty years.")
    bobs = put(bob, "tiny")
    response = as_alice.post("/jobs/quality-scan")
    assert response.status_code == 200
    body = response.json()
    assert (body["job"], body["outcome"]) == ("quality_scan", "ok")
    assert body["counts"] == {"scanned": 3, "read_by_model": 3, "too_short": 1, "expired_ephemeral": 1, "flagged": 2}
    assert sorted((i["id"], tuple(i["reasons"])) for i in body["items"]) == sorted(
        [(str(short.pk), ("too_short",)), (str(expired.pk), ("expired_ephemeral",))]
    )
    fine.refresh_from_db()
    bobs.refresh_from_db()
    assert not fine.low_quality and not bobs.low_quality


def test_quality_scan_twice_reports_the_same_items_and_flags_nothing_new(as_alice, alice):
    put(alice, "ok")
    first = as_alice.post("/jobs/quality-scan").json()
    second = as_alice.post("/jobs/quality-scan").json()
    assert second["items"] == first["items"] and "flagged" not in second["counts"]


def test_jobs_need_a_key(alice):
    from tests.surfaces.api.conftest import AgentClient

    for path in ("/jobs/consolidate", "/jobs/quality-scan"):
        assert AgentClient(None).post(path).status_code == 401
        assert AgentClient("amem_wrong").post(path).status_code == 401
    assert not JobRun.objects.exists()
