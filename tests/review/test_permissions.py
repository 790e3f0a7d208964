"""Who sees what: login required, reviewers see only granted agents (404 otherwise), staff see all."""

from __future__ import annotations

import pytest

from engine.curation.actions import PAIR_DECISIONS
from memories.models import Pair

pytestmark = pytest.mark.django_db


def test_anonymous_is_sent_to_the_login_page(client):
    for url in ["/review/", "/review/agents/alice/notes/", "/review/queues/merges/"]:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/review/login/?next="), url


def test_root_redirects_to_the_review_app(client):
    assert client.get("/")["Location"] == "/review/"


def test_the_login_page_renders_and_logs_in(client, reviewer):
    assert b"Log in to review" in client.get("/review/login/").content
    response = client.post("/review/login/", {"username": "rita", "password": "pw-for-tests"})
    assert response.status_code == 302 and response["Location"] == "/review/"
    bad = client.post("/review/login/", {"username": "rita", "password": "nope"})
    assert bad.status_code == 200 and b"Please enter a correct username" in bad.content


def test_a_reviewer_sees_only_the_granted_agent(rclient, alice, bob, make_note):
    mine = make_note(alice, "Alice keeps her bicycle in the garden shed.")
    theirs = make_note(bob, "Bob parks his scooter behind the bakery.")
    page = rclient.get("/review/").content.decode()
    assert "alice" in page and "bob" not in page
    assert rclient.get(f"/review/notes/{mine.pk}/").status_code == 200
    assert rclient.get(f"/review/notes/{theirs.pk}/").status_code == 404
    assert rclient.get("/review/agents/bob/notes/").status_code == 404
    assert rclient.get("/review/queues/merges/?agent=bob").status_code == 404
    assert rclient.get(f"/review/notes/{theirs.pk}/graph/").status_code == 404


def test_a_reviewer_cannot_act_on_another_agents_note(rclient, bob, make_note):
    older = make_note(bob, "Bob parks his scooter near the station.")
    theirs = make_note(bob, "Bob parks his scooter behind the bakery.")
    pair = Pair.objects.create(kind=Pair.MERGE, older=older, newer=theirs)
    for action in ["retire", "restore", "keep"]:
        assert rclient.post(f"/review/notes/{theirs.pk}/{action}/").status_code == 404, action
    for decision in PAIR_DECISIONS:
        assert rclient.post(f"/review/pairs/{pair.pk}/{decision}/").status_code == 404, decision
    assert Pair.objects.get(pk=pair.pk).status == Pair.OPEN
    assert (
        rclient.post(f"/review/notes/{theirs.pk}/edit/", {"content": "Changed by a stranger, at length."}).status_code
        == 404
    )
    event = theirs.events.get()
    assert rclient.post(f"/review/events/{event.pk}/undo/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.is_active and theirs.events.count() == 1


def test_unknown_and_foreign_notes_look_the_same(rclient, bob, make_note):
    theirs = make_note(bob, "Bob parks his scooter behind the bakery.")
    missing = rclient.get("/review/notes/00000000-0000-0000-0000-000000000000/")
    foreign = rclient.get(f"/review/notes/{theirs.pk}/")
    assert missing.status_code == foreign.status_code == 404
    assert missing.content == foreign.content


def test_a_conflict_across_agents_is_hidden_from_a_reviewer_of_one(rclient, alice, bob, make_note):
    a = make_note(alice, "The meeting room is on the third floor.")
    b = make_note(bob, "The meeting room is on the fifth floor.")
    # The reviewer may review the newer note (alice's) but not the older (bob's): a conflict needs both.
    pair = Pair.objects.create(kind=Pair.CONFLICT, older=b, newer=a, reason="floors differ")
    assert b"floors differ" not in rclient.get("/review/queues/conflicts/").content
    assert rclient.post(f"/review/pairs/{pair.pk}/both/").status_code == 404
    assert rclient.get(f"/review/queues/cards/conflict/{pair.pk}/").status_code == 404
    assert Pair.objects.get().status == "open"


def test_staff_see_every_agent_and_shared_notes(client, staff, alice, bob, make_note):
    client.force_login(staff)
    theirs = make_note(bob, "Bob parks his scooter behind the bakery.")
    shared = make_note(alice, "The office wifi password rotates every month.", agent_id="shared")
    page = client.get("/review/").content.decode()
    assert "alice" in page and "bob" in page and "shared" in page
    assert client.get(f"/review/notes/{theirs.pk}/").status_code == 200
    assert client.get(f"/review/notes/{shared.pk}/").status_code == 200


def test_actions_are_post_only_and_need_csrf(rclient, reviewer, alice, make_note, client):
    note = make_note(alice, "Alice keeps her bicycle in the garden shed.")
    assert rclient.get(f"/review/notes/{note.pk}/retire/").status_code == 405
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(reviewer)
    assert strict.post(f"/review/notes/{note.pk}/retire/").status_code == 403
    note.refresh_from_db()
    assert note.is_active


def test_a_user_without_grants_sees_an_empty_dashboard(client, db, alice):
    from django.contrib.auth import get_user_model

    nobody = get_user_model().objects.create_user("nora", password="x")
    client.force_login(nobody)
    assert b"No agents to review yet" in client.get("/review/").content
    assert client.get("/review/agents/alice/notes/").status_code == 404
