"""Migrations 0017–0019: a store from before the one pair store (conflicts as ``ConflictPair`` rows with
flags copied onto their notes, pending merges as fields on the newer note) migrates with nothing
lost; every card it held is decided and undone in the review app afterwards; and it goes back."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from memories.models import Note, NoteEvent, Pair
from testsupport.migrations import migrate, migrate_to_latest

pytestmark = pytest.mark.usefixtures("latest_schema_after")

BEFORE = [("memories", "0016_note_sweep_deferred_since")]
AFTER = [("memories", "0019_note_pair_flags_gone")]
HTMX = {"HTTP_HX_REQUEST": "true"}


def _old_store() -> dict[str, object]:
    """The state of 0016: every way a pair could wait or have been decided. Returns ids by name."""
    apps = migrate(BEFORE)
    agent = apps.get_model("memories", "Agent").objects.create(id="mig")
    old_note = apps.get_model("memories", "Note")
    old_pair = apps.get_model("memories", "ConflictPair")
    now = timezone.now()
    texts = {
        "c_old": "Dana lives in Leeds and works at the library.",
        "c_new": "Dana moved to York and now works from home.",
        "d_old": "Sam drinks tea every morning.",
        "d_new": "Sam drinks coffee after lunch.",
        "m_old": "Priya is allergic to peanuts.",
        "m_new": "Priya has a peanut allergy.",
        "n_old": "The team meets on Mondays.",
        "n_new": "The team may meet on Tuesdays from now on.",
        "x_old": "Ben plays the violin.",
        "x_new": "Ben plays the viola too.",
        "lonely": "A note an import flagged as contradicting a note it never named.",
    }
    ids: dict[str, object] = {}
    for i, (name, text) in enumerate(texts.items()):
        note = old_note.objects.create(
            agent_id=agent.pk,
            owner=agent.pk,
            readers=[agent.pk],
            writers=[agent.pk],
            content=text,
            content_hash=f"h{i}",
            created_at=now - dt.timedelta(days=30 - i),
        )
        ids[name] = note.pk
    notes = old_note.objects
    old_pair.objects.create(
        note_a_id=ids["c_new"], note_b_id=ids["c_old"], reason="moved", likelihood=0.9, opened_by="rules"
    )
    notes.filter(pk__in=(ids["c_old"], ids["c_new"])).update(conflict=True, conflict_reason="moved")
    old_pair.objects.create(
        note_a_id=ids["d_new"], note_b_id=ids["d_old"], status="resolved", resolution="both", resolved_by="review:x"
    )
    for new, old, guess in (("m_new", "m_old", "same"), ("n_new", "n_old", "change")):
        notes.filter(pk=ids[new]).update(
            pending_merge=True,
            merge_candidate_id=ids[old],
            merge_similarity=0.81,
            merge_guess=guess,
            merge_reason=guess,
        )
    notes.filter(pk=ids["x_new"]).update(merge_candidate_id=ids["x_old"], evolution_type="NEW")
    notes.filter(pk=ids["lonely"]).update(conflict=True, conflict_reason="lonely")
    return ids


@pytest.mark.django_db(transaction=True)
def test_waiting_cards_move_to_pairs_then_decide_and_undo_in_the_review_app(client, store, offline_llm):
    ids = _old_store()
    migrate_to_latest()

    conflict = Pair.objects.get(older_id=ids["c_old"], newer_id=ids["c_new"])
    assert (conflict.kind, conflict.status, conflict.reason, conflict.likelihood, conflict.opened_by) == (
        Pair.CONFLICT,
        Pair.OPEN,
        "moved",
        0.9,
        "rules",
    )
    decided = Pair.objects.get(older_id=ids["d_old"], newer_id=ids["d_new"])
    assert (decided.status, decided.resolution) == (Pair.RESOLVED, "both")
    same = Pair.objects.get(older_id=ids["m_old"], newer_id=ids["m_new"])
    change = Pair.objects.get(older_id=ids["n_old"], newer_id=ids["n_new"])
    for pair, guess in ((same, "same"), (change, "change")):
        assert (pair.kind, pair.status, pair.similarity, pair.guess, pair.reason) == (
            Pair.MERGE,
            Pair.OPEN,
            0.81,
            guess,
            guess,
        )
    # A pair the pending-merge job had judged distinct stays known, so the sweep never offers it again.
    distinct = Pair.objects.get(older_id=ids["x_old"], newer_id=ids["x_new"])
    assert (distinct.kind, distinct.status) == (Pair.MERGE, Pair.RESOLVED)
    assert Pair.objects.count() == 5
    # A conflict flag with no pair to decide leaves its reason in the note's history.
    kept = NoteEvent.objects.get(note_id=ids["lonely"], actor="migration:0018_pair_data")
    assert kept.before == {"conflict": True, "conflict_reason": "lonely"}

    client.force_login(get_user_model().objects.create_user("sam", password="pw", is_staff=True))
    assert client.get("/review/queues/merges/").context["total"] == 2
    assert client.get("/review/queues/conflicts/").context["total"] == 1

    done = {}
    for pair, decision in ((conflict, "replace"), (same, "same"), (change, "both")):
        response = client.post(f"/review/pairs/{pair.pk}/{decision}/", **HTMX)
        assert response.status_code == 200, response.content[:300]
        done[pair.pk] = response.context_data["event"]
    assert not Pair.objects.open().filter(pk__in=done).exists()
    assert Note.objects.get(pk=ids["c_old"]).is_active is False
    assert Note.objects.get(pk=ids["m_new"]).merged_into_id == ids["m_old"]
    assert client.get("/review/queues/merges/").context["total"] == 0

    for pair in (conflict, same, change):
        undo = client.post(f"/review/events/{done[pair.pk].pk}/undo/", {"kind": pair.kind, "key": pair.pk}, **HTMX)
        assert undo.status_code == 200, undo.content[:300]
    assert Pair.objects.open().filter(pk__in=done).count() == 3
    assert all(n.is_active for n in Note.objects.filter(pk__in=[ids["c_old"], ids["m_new"], ids["m_old"]]))
    assert Note.objects.get(pk=ids["m_old"]).content == "Priya is allergic to peanuts."
    assert client.get("/review/queues/merges/").context["total"] == 2
    assert client.get("/review/queues/conflicts/").context["total"] == 1


@pytest.mark.django_db(transaction=True)
def test_going_back_puts_every_open_pair_on_its_notes_again():
    ids = _old_store()
    migrate(AFTER)
    apps = migrate(BEFORE)
    notes = {n.pk: n for n in apps.get_model("memories", "Note").objects.all()}
    assert notes[ids["c_new"]].conflict and notes[ids["c_old"]].conflict_reason == "moved"
    assert not notes[ids["d_new"]].conflict
    waiting = notes[ids["m_new"]]
    assert (waiting.pending_merge, waiting.merge_candidate_id, waiting.merge_similarity, waiting.merge_guess) == (
        True,
        ids["m_old"],
        0.81,
        "same",
    )
    assert notes[ids["x_new"]].merge_candidate_id == ids["x_old"] and not notes[ids["x_new"]].pending_merge
    assert apps.get_model("memories", "ConflictPair").objects.count() == 2
