"""Django admin: login works; access edits reach the index; keys are revocable."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from engine.retrieval.search import search
from engine.write.pipeline import add_episodic
from memories.models import Agent, ApiKey, Erasure, Fact, Gateway, GatewayKey, Note


@pytest.fixture
def admin_client(client, db):
    get_user_model().objects.create_superuser("root", "", "pw-for-tests")
    assert client.login(username="root", password="pw-for-tests")
    return client


def test_admin_login_page_and_changelists_render(admin_client, alice, store):
    add_episodic("An admin can browse this note in the list.", alice)
    for url in ["/admin/", "/admin/memories/note/", "/admin/memories/agent/", "/admin/memories/apikey/"]:
        assert admin_client.get(url).status_code == 200, url


def test_the_admin_requires_login(client, db):
    assert client.get("/admin/memories/note/").status_code == 302


def test_granting_a_reader_in_admin_reindexes_the_note(
    admin_client, alice, bob, store, django_capture_on_commit_callbacks
):
    note = add_episodic("Alice's recipe for plum dumplings uses quark.", alice)
    assert search("plum dumplings recipe", bob) == []
    url = f"/admin/memories/note/{note.pk}/change/"
    form = admin_client.get(url).context["adminform"].form
    data = {k: form.initial.get(k) for k in form.fields}
    data.update(
        {
            "readers": '["alice", "bob"]',
            "writers": '["alice"]',
            "keywords": "[]",
            "tags": "[]",
            "topics": "[]",
            "subjects": "[]",
            "sources": "[]",
            "low_quality_reasons": "[]",
            "created_at_0": note.created_at.strftime("%Y-%m-%d"),
            "created_at_1": note.created_at.strftime("%H:%M:%S"),
            "out_links-TOTAL_FORMS": "0",
            "out_links-INITIAL_FORMS": "0",
            "events-TOTAL_FORMS": "1",
            "events-INITIAL_FORMS": "1",
            "events-0-id": str(note.events.get().pk),
            "events-0-note": str(note.pk),
        }
    )
    data = {k: ("" if v is None else v) for k, v in data.items()}
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else ""
    note.refresh_from_db()
    assert note.readers == ["alice", "bob"] and not note.index_dirty
    assert note.events.filter(action="admin_edit").exists()
    assert search("plum dumplings recipe", bob)[0].note == note


def test_keys_can_be_revoked_from_the_admin(admin_client, alice):
    key, raw = ApiKey.issue(alice)
    admin_client.post("/admin/memories/apikey/", {"action": "revoke", "_selected_action": [key.pk]})
    assert ApiKey.authenticate(raw) is None
    assert Note.objects.count() == 0


@pytest.mark.parametrize(
    ("changelist", "key_model", "make_owner"),
    [
        ("agent", ApiKey, lambda: Agent.objects.create(id="writer")),
        ("gateway", GatewayKey, lambda: Gateway.objects.create(prefix="lab-")),
    ],
)
def test_a_key_issued_in_the_admin_is_shown_once_and_authenticates(admin_client, changelist, key_model, make_owner):
    owner = make_owner()
    answer = admin_client.post(
        f"/admin/memories/{changelist}/", {"action": "issue_key", "_selected_action": [owner.pk]}, follow=True
    )
    (shown,) = [str(m) for m in answer.context["messages"]]
    raw = shown.split(": ", 1)[1].split(" ")[0]
    assert f"New key for {changelist} {owner.pk}" in shown
    assert key_model.authenticate(raw).owner == owner
    assert raw not in str(list(key_model.objects.values()))  # only its hash is stored


def test_healthz_reports_database_and_index(client, store, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": True, "index": True, "cache": True}


def test_healthz_is_503_when_the_index_is_down(client, store, db, monkeypatch):
    monkeypatch.setattr(store, "ping", lambda: False)
    response = client.get("/healthz")
    assert response.status_code == 503 and response.json()["index"] is False


def test_erasing_notes_from_the_admin_asks_twice(admin_client, alice, store):
    from engine.write.pipeline import add_episodic

    note = add_episodic("The alarm code for the office is written in the red notebook", alice)
    ask = {"action": "erase_notes", "_selected_action": [str(note.pk)]}
    first = admin_client.post("/admin/memories/note/", ask)
    assert first.status_code == 200 and b"cannot be undone" in first.content
    assert Note.objects.get(pk=note.pk).erased_at is None  # asked, not done
    admin_client.post("/admin/memories/note/", {**ask, "erase_confirmed": "yes"})
    erased = Note.objects.get(pk=note.pk)
    assert erased.erased_at is not None and erased.content == ""
    assert Erasure.objects.get().actor == "admin:root"


def test_facts_are_read_only_in_the_admin(admin_client, alice):
    assert admin_client.get("/admin/memories/fact/add/").status_code == 403
    fact = Fact.objects.create(agent_id="alice", subject="alice", relation="likes", object="tea")
    assert admin_client.post(f"/admin/memories/fact/{fact.pk}/change/", {"object": "coffee"}).status_code == 403
    assert Fact.objects.get(pk=fact.pk).object == "tea"
