"""Every reviewer action: its effect, its event (actor review:<user>), the dirty mark, and its undo."""

from __future__ import annotations

import pytest

from memories.models import ConflictPair, Note, NoteEvent
from tests.review.conftest import HTMX

pytestmark = pytest.mark.django_db

ACTOR = "review:rita"


@pytest.fixture(autouse=True)
def _index_sync_waits_for_commit(django_capture_on_commit_callbacks):
    """These tests check the dirty mark an action leaves for the indexer: after-commit hooks wait
    (the test's transaction never commits) instead of indexing at once (tests/conftest.py)."""


def clean(note: Note) -> Note:
    """Pretend the indexer ran, so a later dirty mark is this action's."""
    Note.objects.filter(pk=note.pk).update(index_dirty=False)
    note.refresh_from_db()
    return note


def last_event(note: Note) -> NoteEvent:
    return NoteEvent.objects.filter(note=note).order_by("-id").first()


def undo(client, event: NoteEvent, **data):
    return client.post(f"/review/events/{event.pk}/undo/", data, **HTMX)


def test_edit_replaces_the_text_and_undo_brings_it_back(rclient, alice, make_note):
    note = clean(make_note(alice, "Alice's cat is called Miso and sleeps on the piano."))
    response = rclient.post(
        f"/review/notes/{note.pk}/edit/", {"content": "Alice's cat is called Miso; it sleeps on the sofa."}, **HTMX
    )
    assert response.status_code == 200 and b"Saved." in response.content and b"<html" not in response.content
    note.refresh_from_db()
    assert note.content.endswith("sleeps on the sofa.") and note.index_dirty
    event = last_event(note)
    assert (event.action, event.actor) == ("review", ACTOR)
    assert event.before["content"].endswith("piano.") and b"<del>" in response.content
    clean(note)
    assert undo(rclient, event).status_code == 200
    note.refresh_from_db()
    assert note.content.endswith("piano.") and note.index_dirty
    assert last_event(note).after["undo_of"] == event.pk


def test_bad_edits_say_why_and_change_nothing(rclient, alice, make_note):
    note = clean(make_note(alice, "Alice's cat is called Miso and sleeps on the piano."))
    for text, message in [
        ("ok", b"shorter than"),
        (note.content, b"unchanged"),
        ("bad \x00 control character text", b"null characters"),
    ]:
        response = rclient.post(f"/review/notes/{note.pk}/edit/", {"content": text}, **HTMX)
        assert response.status_code == 422, text
        assert response["HX-Retarget"] == "#messages" and message in response.content.lower(), response.content
    note.refresh_from_db()
    assert note.content.endswith("piano.") and not note.index_dirty and note.events.count() == 1


def test_a_plain_form_post_redirects_back_with_a_message(rclient, alice, make_note):
    note = make_note(alice, "Alice's cat is called Miso and sleeps on the piano.")
    response = rclient.post(f"/review/notes/{note.pk}/retire/", follow=True)
    assert response.redirect_chain[-1][0] == f"/review/notes/{note.pk}/" and b"Retired." in response.content
    again = rclient.post(f"/review/notes/{note.pk}/retire/", follow=True)
    assert b"already retired" in again.content


def test_retire_restore_and_undo(rclient, alice, make_note):
    note = clean(make_note(alice, "Alice's cat is called Miso and sleeps on the piano."))
    rclient.post(f"/review/notes/{note.pk}/retire/", **HTMX)
    note.refresh_from_db()
    retired = last_event(note)
    assert not note.is_active and note.index_dirty and (retired.action, retired.actor) == ("retire", ACTOR)
    rclient.post(f"/review/notes/{note.pk}/restore/", **HTMX)
    note.refresh_from_db()
    assert note.is_active and last_event(note).action == "restore"
    # The retire is older than the restore: undoing it first is refused, nothing changes.
    refused = undo(rclient, retired)
    assert refused.status_code == 409 and b"undo the newer change first" in refused.content
    undo(rclient, last_event(note))
    note.refresh_from_db()
    assert not note.is_active
    assert undo(rclient, last_event(note)).status_code == 409  # an undo is not undone again


def test_an_agent_crud_update_can_be_undone_from_history(rclient, alice, make_note):
    from engine.write.edit import update_memory

    note = make_note(alice, "Alice's cat is called Miso and sleeps on the piano.")
    update_memory(note.pk, "Alice's cat Miso now sleeps in a basket by the window.", alice)
    page = rclient.get(f"/review/notes/{note.pk}/").content.decode()
    event = last_event(note)
    assert event.action == "crud_update" and f"/review/events/{event.pk}/undo/" in page
    undo(rclient, event)
    note.refresh_from_db()
    assert note.content.endswith("piano.") and note.embedding is None and note.index_dirty


def test_pending_merge_keep_both_then_undo(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = clean(
        make_note(
            alice,
            "Alice drinks green tea each morning at seven.",
            pending_merge=True,
            merge_candidate=old,
            merge_similarity=0.8,
        )
    )
    response = rclient.post(f"/review/notes/{new.pk}/pending/both/", **HTMX)
    assert b"Both true: kept both" in response.content and b"Undo" in response.content
    new.refresh_from_db()
    assert not new.pending_merge and new.merge_candidate_id is None and new.index_dirty and new.is_active
    restored = undo(rclient, last_event(new), kind="merge", key=str(new.pk))
    assert f'id="merge-{new.pk}"'.encode() in restored.content and b"Both true" in restored.content
    new.refresh_from_db()
    assert new.pending_merge and new.merge_candidate_id == old.pk and new.merge_similarity == 0.8


def test_pending_merge_newer_replaces_older_keeps_the_new_note_and_retires_the_existing(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks black coffee every morning now.", pending_merge=True, merge_candidate=old)
    response = rclient.post(f"/review/notes/{new.pk}/pending/replace/", **HTMX)
    assert b"kept \xe2\x80\x9cAlice drinks black coffee" in response.content
    new.refresh_from_db()
    old.refresh_from_db()
    assert new.is_active and not new.pending_merge and not old.is_active
    assert last_event(old).after["superseded_by"] == str(new.pk)
    assert rclient.post(f"/review/notes/{new.pk}/pending/replace/", **HTMX).status_code == 409
    undo(rclient, last_event(new), kind="merge", key=str(new.pk))
    new.refresh_from_db()
    old.refresh_from_db()
    assert old.is_active and new.pending_merge and new.merge_candidate_id == old.pk


def test_pending_merge_folds_into_the_older_note_and_undo_reverts_both(rclient, alice, make_note):
    old = clean(make_note(alice, "Alice drinks green tea every morning.", sources=["m1"]))
    new = make_note(alice, "She takes it without sugar.", pending_merge=True, merge_candidate=old, sources=["m2"])
    response = rclient.post(f"/review/notes/{new.pk}/pending/same/", **HTMX)
    assert response.status_code == 200 and b"Same fact: merged" in response.content
    old.refresh_from_db()
    new.refresh_from_db()
    assert "without sugar" in old.content and old.sources == ["m1", "m2"] and old.index_dirty
    assert not new.is_active and new.merged_into_id == old.pk and not new.pending_merge
    # The engine's one merge routine: a fold event, then the counters' consolidate event, one group.
    fold = old.events.filter(action="fold").latest("pk")
    assert last_event(old).action == "consolidate" and last_event(old).after["group"] == fold.after["group"]
    assert fold.actor == ACTOR and fold.after["group"] == last_event(new).after["group"]
    undo(rclient, last_event(new), kind="merge", key=str(new.pk))
    old.refresh_from_db()
    new.refresh_from_db()
    assert old.content == "Alice drinks green tea every morning." and old.sources == ["m1"]
    assert new.is_active and new.pending_merge and new.merge_candidate_id == old.pk and new.merged_into_id is None


def test_unknown_pending_op_is_refused(rclient, alice, make_note):
    note = make_note(alice, "Alice drinks green tea each morning at seven.", pending_merge=True)
    response = rclient.post(f"/review/notes/{note.pk}/pending/explode/", **HTMX)
    assert response.status_code == 422 and b"Unknown decision" in response.content
    assert response.status_code == 422 and last_event(note).action == "create"


@pytest.fixture
def conflict(alice, make_note):
    a = clean(make_note(alice, "The meeting room is on the third floor.", conflict=True, conflict_reason="floors"))
    b = clean(make_note(alice, "The meeting room is on the fifth floor.", conflict=True, conflict_reason="floors"))
    return ConflictPair.objects.create(note_a=a, note_b=b, reason="floors differ")


@pytest.mark.parametrize(
    "decision, resolution, a_active, b_active",
    [("replace", "replace", False, True), ("both", "both", True, True), ("unrelated", "unrelated", True, True)],
)
def test_conflict_decisions_and_their_undo(rclient, conflict, decision, resolution, a_active, b_active):
    # A (the third floor) was written first: the older; "newer replaces older" keeps B.
    response = rclient.post(f"/review/conflicts/{conflict.pk}/{decision}/", **HTMX)
    assert response.status_code == 200 and b"Undo" in response.content
    conflict.refresh_from_db()
    a, b = Note.objects.get(pk=conflict.note_a_id), Note.objects.get(pk=conflict.note_b_id)
    assert (conflict.status, conflict.resolution, conflict.resolved_by) == ("resolved", resolution, ACTOR)
    assert (a.is_active, b.is_active) == (a_active, b_active) and not a.conflict and not b.conflict
    assert a.index_dirty and b.index_dirty
    again = rclient.post(f"/review/conflicts/{conflict.pk}/{decision}/", **HTMX)
    assert again.status_code == 409 and b"resolved already" in again.content
    restored = undo(rclient, last_event(a), kind="conflict", key=str(conflict.pk))
    assert b"Newer replaces older" in restored.content
    conflict.refresh_from_db()
    a.refresh_from_db()
    b.refresh_from_db()
    assert conflict.status == "open" and conflict.resolution == "" and conflict.superseded_id is None
    assert a.is_active and b.is_active and a.conflict and b.conflict


def test_conflict_same_fact_folds_the_newer_into_the_older(rclient, conflict):
    rclient.post(f"/review/conflicts/{conflict.pk}/same/", **HTMX)
    conflict.refresh_from_db()
    a, b = Note.objects.get(pk=conflict.note_a_id), Note.objects.get(pk=conflict.note_b_id)
    assert conflict.resolution == "same" and "fifth floor" in a.content and not b.is_active and b.merged_into_id == a.pk
    undo(rclient, last_event(b))
    conflict.refresh_from_db()
    a.refresh_from_db()
    b.refresh_from_db()
    assert conflict.status == "open" and a.content == "The meeting room is on the third floor." and b.is_active


def test_unknown_conflict_choice_is_refused(rclient, conflict):
    response = rclient.post(f"/review/conflicts/{conflict.pk}/keep_c/", **HTMX)
    assert response.status_code == 422 and b"Unknown decision" in response.content
    conflict.refresh_from_db()
    assert conflict.status == "open"


def test_low_quality_keep_and_retire_from_the_queue(rclient, alice, make_note):
    flagged = clean(
        make_note(
            alice, "Alice maybe likes jazz, not sure at all.", low_quality=True, low_quality_reasons=["too_vague"]
        )
    )
    response = rclient.post(f"/review/notes/{flagged.pk}/keep/", {"card": "1"}, **HTMX)
    assert f'id="quality-{flagged.pk}"'.encode() in response.content and b"Undo" in response.content
    flagged.refresh_from_db()
    assert not flagged.low_quality and flagged.low_quality_reasons == []
    restored = undo(rclient, last_event(flagged), kind="quality", key=str(flagged.pk))
    assert b"too_vague" in restored.content
    flagged.refresh_from_db()
    assert flagged.low_quality and flagged.low_quality_reasons == ["too_vague"]
    rclient.post(f"/review/notes/{flagged.pk}/retire/", {"card": "1"}, **HTMX)
    flagged.refresh_from_db()
    assert not flagged.is_active


def test_an_action_schedules_the_index_sync(rclient, alice, make_note, django_capture_on_commit_callbacks):
    note = clean(make_note(alice, "Alice's cat is called Miso and sleeps on the piano."))
    with django_capture_on_commit_callbacks(execute=True):
        rclient.post(f"/review/notes/{note.pk}/retire/", **HTMX)
    note.refresh_from_db()
    assert not note.is_active and not note.index_dirty and note.indexed_at is not None


def test_a_decision_on_a_card_drawn_before_a_change_is_refused_and_the_card_drawn_again(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks green tea every morning at seven.", pending_merge=True, merge_candidate=old)
    shown = f"{old.pk}:{old.revision} {new.pk}:{new.revision}"
    Note.objects.filter(pk=old.pk).update(revision=old.revision + 1)  # changed since the card was drawn
    for decision in ("same", "replace", "both", "unrelated"):
        response = rclient.post(f"/review/notes/{new.pk}/pending/{decision}/", {"shown": shown}, **HTMX)
        body = response.content.decode()
        assert response.status_code == 409 and "changed since this card was drawn" in body, decision
        assert f'id="merge-{new.pk}"' in body and f"{old.pk}:{old.revision + 1}" in body  # drawn as it is now
    new.refresh_from_db()
    assert new.pending_merge and new.is_active and Note.objects.get(pk=old.pk).is_active
    assert not NoteEvent.objects.filter(actor=ACTOR).exists()
    unreadable = rclient.post(f"/review/notes/{new.pk}/pending/both/", {"shown": "nonsense"}, **HTMX)
    assert unreadable.status_code == 422 and b"not readable" in unreadable.content


def test_a_stale_conflict_card_is_refused_too(rclient, conflict):
    a = conflict.note_a
    shown = f"{a.pk}:{a.revision} {conflict.note_b_id}:{conflict.note_b.revision}"
    Note.objects.filter(pk=a.pk).update(revision=a.revision + 1)
    response = rclient.post(f"/review/conflicts/{conflict.pk}/replace/", {"shown": shown}, **HTMX)
    assert response.status_code == 409 and f'id="conflict-{conflict.pk}"'.encode() in response.content
    conflict.refresh_from_db()
    assert conflict.status == "open" and Note.objects.get(pk=conflict.note_b_id).is_active


def test_one_card_is_drawn_again_only_for_its_reviewer(rclient, alice, bob, make_note):
    mine = make_note(alice, "Alice drinks green tea each morning.", pending_merge=True)
    theirs = make_note(bob, "Bob drinks black coffee each morning.", pending_merge=True)
    assert rclient.get(f"/review/queues/cards/merge/{mine.pk}/?redrawn=1").status_code == 200
    assert rclient.get(f"/review/queues/cards/merge/{theirs.pk}/").status_code == 404
    assert rclient.get(f"/review/queues/cards/nonsense/{mine.pk}/").status_code == 404


def test_a_decision_says_what_it_did_and_which_event_undoes_all_of_it(alice, reviewer, make_note, conflict):
    from engine.curation import actions

    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "She takes it without sugar.", pending_merge=True, merge_candidate=old)
    merged = actions.decide_pending(new, old, "same", reviewer)
    assert (merged.decision, merged.older.pk, merged.newer.pk) == ("same", old.pk, new.pk)
    assert "without sugar" in merged.older.content and merged.older_text == "Alice drinks green tea every morning."
    assert merged.event is not None and merged.event.after["group"] in {e.after.get("group") for e in new.events.all()}

    replaced = actions.decide_conflict(conflict, "replace", reviewer)
    assert replaced.older.pk == conflict.note_a_id and not Note.objects.get(pk=conflict.note_a_id).is_active
    assert replaced.event is not None and replaced.event.after["op"] == "replace"
    actions.undo(replaced.event, reviewer, may_review=lambda _agent: True)
    assert Note.objects.get(pk=conflict.note_a_id).is_active  # the whole decision, from the event it named


def test_a_bulk_action_names_the_cards_it_did_and_why_it_skipped_the_rest(alice, reviewer, make_note):
    from engine.curation import actions

    flagged = make_note(alice, "ok thanks so much!", low_quality=True, low_quality_reasons=["filler"])
    fine = make_note(alice, "Alice's sister Ana lives in Lisbon.")
    done = actions.bulk([flagged, fine], "keep", reviewer, candidate_for=lambda _note: None)
    assert [n.pk for n in done.done] == [flagged.pk] and len(done.skipped) == 1 and "not flagged" in done.skipped[0]
    assert NoteEvent.objects.filter(after__group=done.group).count() == 1
