"""Erasing from the review app: staff only, shown as irreversible, asked twice."""

from __future__ import annotations

from memories.models import Erasure, Note


def test_staff_erase_a_note_after_confirming_twice(client, staff, alice, make_note):
    note = make_note(alice, "The safe combination is hidden behind the painting")
    client.force_login(staff)
    page = client.get(f"/review/notes/{note.pk}/")
    assert f"/review/notes/{note.pk}/erase/" in page.content.decode()
    ask = client.get(f"/review/notes/{note.pk}/erase/")
    assert "cannot be undone" in ask.content.decode()
    unticked = client.post(f"/review/notes/{note.pk}/erase/")
    assert unticked.status_code == 200 and Note.objects.get(pk=note.pk).erased_at is None
    done = client.post(f"/review/notes/{note.pk}/erase/", {"understood": "yes"})
    assert done.status_code == 302
    assert Note.objects.get(pk=note.pk).content == ""
    assert Erasure.objects.get().actor.endswith("sam")
    after = client.get(f"/review/notes/{note.pk}/").content.decode()
    assert "erased" in after and "safe combination" not in after


def test_a_reviewer_who_is_not_staff_may_not_erase(rclient, alice, make_note):
    note = make_note(alice, "The safe combination is hidden behind the painting")
    assert rclient.post(f"/review/notes/{note.pk}/erase/", {"understood": "yes"}).status_code == 403
    assert Note.objects.get(pk=note.pk).erased_at is None
