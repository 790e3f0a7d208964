"""Every reviewer action: its effect, its event (actor review:<user>), the dirty mark, and its undo."""

from __future__ import annotations

import pytest

from memories.models import Note, NoteEvent, Pair
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


def merge_pair(older: Note, newer: Note, **fields) -> Pair:
    """``newer`` waits in the merges queue beside ``older`` (a pending merge)."""
    return Pair.objects.create(kind=Pair.MERGE, older=older, newer=newer, **fields)


def pending(note: Note) -> bool:
    """Whether the note waits for a merge decision (the newer of an open merge pair)."""
    return Note.objects.waiting(Pair.MERGE, as_newer=True).filter(pk=note.pk).exists()


def in_conflict(note: Note) -> bool:
    """Whether the note waits in the conflicts queue (either side of an open conflict pair)."""
    return Note.objects.waiting(Pair.CONFLICT).filter(pk=note.pk).exists()


def decide(client, pair: Pair, decision: str, **data):
    return client.post(f"/review/pairs/{pair.pk}/{decision}/", data, **HTMX)


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
    new = clean(make_note(alice, "Alice drinks green tea each morning at seven."))
    pair = merge_pair(old, new, similarity=0.8)
    response = decide(rclient, pair, "both")
    assert b"Both true: kept both" in response.content and b"Undo" in response.content
    new.refresh_from_db()
    pair.refresh_from_db()
    assert not pending(new) and new.index_dirty and new.is_active
    assert (pair.status, pair.resolution, pair.resolved_by) == (Pair.RESOLVED, "both", ACTOR)
    restored = undo(rclient, last_event(new), kind="merge", key=str(pair.pk))
    assert f'id="merge-{pair.pk}"'.encode() in restored.content and b"Both true" in restored.content
    pair.refresh_from_db()
    assert pending(new) and pair.status == Pair.OPEN and pair.resolution == ""
    assert (pair.older_id, pair.newer_id, pair.similarity) == (old.pk, new.pk, 0.8)


def test_pending_merge_newer_replaces_older_keeps_the_new_note_and_retires_the_existing(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks black coffee every morning now.")
    pair = merge_pair(old, new)
    response = decide(rclient, pair, "replace")
    assert b"kept \xe2\x80\x9cAlice drinks black coffee" in response.content
    new.refresh_from_db()
    old.refresh_from_db()
    pair.refresh_from_db()
    assert new.is_active and not pending(new) and not old.is_active
    assert (pair.resolution, pair.superseded_id) == ("replace", old.pk)
    assert last_event(old).after["superseded_by"] == str(new.pk)
    assert decide(rclient, pair, "replace").status_code == 409
    undo(rclient, last_event(new), kind="merge", key=str(pair.pk))
    new.refresh_from_db()
    old.refresh_from_db()
    pair.refresh_from_db()
    assert old.is_active and pending(new) and pair.older_id == old.pk and pair.superseded_id is None


def test_pending_merge_folds_into_the_older_note_and_undo_reverts_both(rclient, alice, make_note):
    old = clean(make_note(alice, "Alice drinks green tea every morning.", sources=["m1"]))
    new = make_note(alice, "She takes it without sugar.", sources=["m2"])
    pair = merge_pair(old, new)
    response = decide(rclient, pair, "same")
    assert response.status_code == 200 and b"Same fact: merged" in response.content
    old.refresh_from_db()
    new.refresh_from_db()
    pair.refresh_from_db()
    assert "without sugar" in old.content and old.sources == ["m1", "m2"] and old.index_dirty
    assert not new.is_active and new.merged_into_id == old.pk and not pending(new)
    assert (pair.resolution, pair.superseded_id) == ("same", new.pk)
    # The engine's one merge routine: a fold event, then the counters' consolidate event, one group.
    fold = old.events.filter(action="fold").latest("pk")
    assert last_event(old).action == "consolidate" and last_event(old).after["group"] == fold.after["group"]
    assert fold.actor == ACTOR and fold.after["group"] == last_event(new).after["group"]
    undo(rclient, last_event(new), kind="merge", key=str(pair.pk))
    old.refresh_from_db()
    new.refresh_from_db()
    pair.refresh_from_db()
    assert old.content == "Alice drinks green tea every morning." and old.sources == ["m1"]
    assert new.is_active and pending(new) and pair.older_id == old.pk and new.merged_into_id is None


def test_a_note_may_wait_beside_two_older_notes_and_each_card_is_decided_on_its_own(rclient, alice, make_note):
    tea = make_note(alice, "Alice drinks green tea every morning.")
    cycle = make_note(alice, "Alice cycles to work every morning.")
    new = make_note(alice, "Every morning Alice drinks green tea, then cycles to work.")
    first, second = merge_pair(tea, new, similarity=0.8), merge_pair(cycle, new, similarity=0.7)
    assert pending(new)
    queue = rclient.get("/review/queues/merges/")
    body = queue.content.decode()
    assert queue.context["total"] == 2 and {r["key"] for r in queue.context["rows"]} == {str(first.pk), str(second.pk)}
    assert f'id="merge-{first.pk}"' in body and f'id="merge-{second.pk}"' in body
    assert f"/review/pairs/{first.pk}/both/" in body and f"/review/pairs/{second.pk}/both/" in body
    # Deciding one card leaves the other open, and the note still waits beside the other older note.
    assert decide(rclient, first, "both").status_code == 200
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.resolution) == (Pair.RESOLVED, "both") and second.status == Pair.OPEN
    assert pending(new)
    rows = rclient.get("/review/queues/merges/").context["rows"]
    assert [r["key"] for r in rows] == [str(second.pk)] and rows[0]["older"].pk == cycle.pk
    # The other card takes its own decision: the newer replaces the second older note only.
    assert decide(rclient, second, "replace").status_code == 200
    second.refresh_from_db()
    assert (second.status, second.resolution, second.superseded_id) == (Pair.RESOLVED, "replace", cycle.pk)
    assert not pending(new) and rclient.get("/review/queues/merges/").context["total"] == 0
    assert [Note.objects.get(pk=n.pk).is_active for n in (tea, cycle, new)] == [True, False, True]
    assert decide(rclient, first, "replace").status_code == 409  # the first stays decided as it was
    assert Note.objects.get(pk=tea.pk).is_active


def test_unknown_pending_op_is_refused(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    note = make_note(alice, "Alice drinks green tea each morning at seven.")
    pair = merge_pair(old, note)
    response = decide(rclient, pair, "explode")
    assert response.status_code == 422 and b"Unknown decision" in response.content
    assert response.status_code == 422 and last_event(note).action == "create"
    pair.refresh_from_db()
    assert pair.status == Pair.OPEN


@pytest.fixture
def conflict(alice, make_note):
    a = clean(make_note(alice, "The meeting room is on the third floor."))
    b = clean(make_note(alice, "The meeting room is on the fifth floor."))
    return Pair.objects.create(kind=Pair.CONFLICT, older=a, newer=b, reason="floors differ")


@pytest.mark.parametrize(
    "decision, resolution, a_active, b_active",
    [("replace", "replace", False, True), ("both", "both", True, True), ("unrelated", "unrelated", True, True)],
)
def test_conflict_decisions_and_their_undo(rclient, conflict, decision, resolution, a_active, b_active):
    # A (the third floor) was written first: the older; "newer replaces older" keeps B.
    a, b = Note.objects.get(pk=conflict.older_id), Note.objects.get(pk=conflict.newer_id)
    assert in_conflict(a) and in_conflict(b)
    response = decide(rclient, conflict, decision)
    assert response.status_code == 200 and b"Undo" in response.content
    conflict.refresh_from_db()
    a.refresh_from_db()
    b.refresh_from_db()
    assert (conflict.status, conflict.resolution, conflict.resolved_by) == ("resolved", resolution, ACTOR)
    assert (a.is_active, b.is_active) == (a_active, b_active) and not in_conflict(a) and not in_conflict(b)
    assert a.index_dirty and b.index_dirty
    again = decide(rclient, conflict, decision)
    assert again.status_code == 409 and b"resolved already" in again.content
    restored = undo(rclient, last_event(a), kind="conflict", key=str(conflict.pk))
    assert b"Newer replaces older" in restored.content
    conflict.refresh_from_db()
    a.refresh_from_db()
    b.refresh_from_db()
    assert conflict.status == "open" and conflict.resolution == "" and conflict.superseded_id is None
    assert a.is_active and b.is_active and in_conflict(a) and in_conflict(b)


def test_conflict_same_fact_folds_the_newer_into_the_older(rclient, conflict):
    decide(rclient, conflict, "same")
    conflict.refresh_from_db()
    a, b = Note.objects.get(pk=conflict.older_id), Note.objects.get(pk=conflict.newer_id)
    assert conflict.resolution == "same" and "fifth floor" in a.content and not b.is_active and b.merged_into_id == a.pk
    undo(rclient, last_event(b))
    conflict.refresh_from_db()
    a.refresh_from_db()
    b.refresh_from_db()
    assert conflict.status == "open" and a.content == "The meeting room is on the third floor." and b.is_active


def test_unknown_conflict_choice_is_refused(rclient, conflict):
    response = decide(rclient, conflict, "keep_c")
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
    new = make_note(alice, "Alice drinks green tea every morning at seven.")
    pair = merge_pair(old, new)
    shown = f"{old.pk}:{old.revision} {new.pk}:{new.revision}"
    Note.objects.filter(pk=old.pk).update(revision=old.revision + 1)  # changed since the card was drawn
    for decision in ("same", "replace", "both", "unrelated"):
        response = decide(rclient, pair, decision, shown=shown)
        body = response.content.decode()
        assert response.status_code == 409 and "changed since this card was drawn" in body, decision
        assert f'id="merge-{pair.pk}"' in body and f"{old.pk}:{old.revision + 1}" in body  # drawn as it is now
    pair.refresh_from_db()
    assert pending(new) and pair.status == Pair.OPEN and Note.objects.get(pk=new.pk).is_active
    assert Note.objects.get(pk=old.pk).is_active
    assert not NoteEvent.objects.filter(actor=ACTOR).exists()
    unreadable = decide(rclient, pair, "both", shown="nonsense")
    assert unreadable.status_code == 422 and b"not readable" in unreadable.content


def test_a_stale_conflict_card_is_refused_too(rclient, conflict):
    a = conflict.older
    shown = f"{a.pk}:{a.revision} {conflict.newer_id}:{conflict.newer.revision}"
    Note.objects.filter(pk=a.pk).update(revision=a.revision + 1)
    response = decide(rclient, conflict, "replace", shown=shown)
    assert response.status_code == 409 and f'id="conflict-{conflict.pk}"'.encode() in response.content
    conflict.refresh_from_db()
    assert conflict.status == "open" and Note.objects.get(pk=conflict.older_id).is_active


def test_one_card_is_drawn_again_only_for_its_reviewer(rclient, alice, bob, make_note):
    mine = merge_pair(
        make_note(alice, "Alice drinks green tea every morning."),
        make_note(alice, "Alice drinks green tea each morning."),
    )
    theirs = merge_pair(
        make_note(bob, "Bob drinks black coffee every morning."),
        make_note(bob, "Bob drinks black coffee each morning."),
    )
    assert rclient.get(f"/review/queues/cards/merge/{mine.pk}/?redrawn=1").status_code == 200
    assert rclient.get(f"/review/queues/cards/merge/{theirs.pk}/").status_code == 404
    assert rclient.get(f"/review/queues/cards/nonsense/{mine.pk}/").status_code == 404


def test_a_decision_says_what_it_did_and_which_event_undoes_all_of_it(alice, reviewer, make_note, conflict):
    from engine.curation import actions

    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "She takes it without sugar.")
    merged = actions.decide(merge_pair(old, new), "same", reviewer)
    assert (merged.decision, merged.older.pk, merged.newer.pk) == ("same", old.pk, new.pk)
    assert "without sugar" in merged.older.content and merged.older_text == "Alice drinks green tea every morning."
    assert merged.event is not None and merged.event.after["group"] in {e.after.get("group") for e in new.events.all()}

    replaced = actions.decide(conflict, "replace", reviewer)
    assert replaced.older.pk == conflict.older_id and not Note.objects.get(pk=conflict.older_id).is_active
    assert replaced.event is not None and replaced.event.after["op"] == "replace"
    actions.undo(replaced.event, reviewer, may_review=lambda _agent: True)
    assert Note.objects.get(pk=conflict.older_id).is_active  # the whole decision, from the event it named
    conflict.refresh_from_db()
    assert conflict.status == Pair.OPEN


def test_a_bulk_action_names_the_cards_it_did_and_why_it_skipped_the_rest(alice, reviewer, make_note):
    from engine.curation import actions

    flagged = make_note(alice, "ok thanks so much!", low_quality=True, low_quality_reasons=["filler"])
    fine = make_note(alice, "Alice's sister Ana lives in Lisbon.")
    done = actions.bulk_quality([flagged, fine], "keep", reviewer)
    assert [n.pk for n in done.done] == [flagged.pk] and len(done.skipped) == 1 and "not flagged" in done.skipped[0]
    assert NoteEvent.objects.filter(after__group=done.group).count() == 1


def test_a_merge_beside_a_note_the_reviewer_may_not_see_hides_it_and_offers_only_keeping_both(
    rclient, alice, bob, make_note
):
    """The reviewer reviews alice, not bob: a merge card whose older note is bob's shows alice's note
    alone; "same fact" and "newer replaces older" are refused there and change nothing; "both true"
    closes the pair and leaves bob's note as it was."""
    hidden = clean(make_note(bob, "Bob keeps the spare key to the shed under the blue flowerpot."))
    mine = clean(make_note(alice, "Alice keeps the spare key to the shed under the flowerpot."))
    pair = merge_pair(hidden, mine, similarity=0.8, guess="same", reason="one fact?")

    page = rclient.get("/review/queues/merges/").content.decode()
    assert f'id="merge-{pair.pk}"' in page and mine.content in page
    assert hidden.content not in page
    assert f"/review/pairs/{pair.pk}/same/" not in page and f"/review/pairs/{pair.pk}/replace/" not in page
    assert f"/review/pairs/{pair.pk}/both/" in page

    for refused in ("same", "replace"):
        response = decide(rclient, pair, refused)
        assert response.status_code == 409 and b"not yours to review" in response.content
    pair.refresh_from_db()
    assert pair.status == Pair.OPEN and pending(mine)

    assert decide(rclient, pair, "both").status_code == 200
    pair.refresh_from_db()
    assert (pair.status, pair.resolution) == (Pair.RESOLVED, "both")
    before = hidden.revision
    hidden.refresh_from_db()
    assert (
        hidden.is_active
        and hidden.revision == before
        and not NoteEvent.objects.filter(note=hidden, action="review").exists()
    )
