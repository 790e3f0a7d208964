"""Management commands: agents and keys, add, search, bootstrap, the local bridge."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from engine.errors import IndexLocked
from memories.models import Agent, ApiKey, Note
from review.views.queues import waiting_by_agent


def run(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_agent_create_prints_a_working_key_once_and_stores_only_its_hash(db):
    out = run("amem_agent", "create", "writer", "--name", "Writer")
    raw = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("api key:"))
    key = ApiKey.objects.get(agent_id="writer")
    assert raw not in (key.hashed, key.prefix) and key.prefix == raw[:12]
    assert ApiKey.authenticate(raw).agent_id == "writer"
    assert ApiKey.authenticate(raw + "x") is None


def test_agent_create_refuses_duplicates_and_bad_ids(db):
    run("amem_agent", "create", "writer")
    with pytest.raises(CommandError, match="already exists"):
        run("amem_agent", "create", "writer")
    with pytest.raises(CommandError, match="id"):
        run("amem_agent", "create", "Not A Slug!")
    with pytest.raises(CommandError, match="reserved"):
        run("amem_agent", "create", "shared")
    assert list(Agent.objects.values_list("pk", flat=True)) == ["writer"]


def test_revoked_keys_stop_authenticating_and_list_shows_them(db):
    out = run("amem_agent", "create", "writer")
    raw = out.split("api key: ")[1].split()[0]
    run("amem_agent", "revoke", raw[:10])
    assert ApiKey.authenticate(raw) is None
    listing = run("amem_agent", "list")
    assert "writer" in listing and "revoked" in listing
    with pytest.raises(CommandError, match="no live key"):
        run("amem_agent", "revoke", raw[:10])


def test_a_new_key_can_be_issued_for_an_existing_agent(db):
    run("amem_agent", "create", "writer")
    raw = run("amem_agent", "key", "writer").split("api key: ")[1].split()[0]
    assert ApiKey.authenticate(raw).agent_id == "writer"
    assert ApiKey.objects.filter(agent_id="writer").count() == 2


def test_add_then_search_from_the_command_line(alice, store):
    note_id = run("amem_add", "--agent", "alice", "--subject", "alex", "Alex waters the ficus every Sunday.").strip()
    assert Note.objects.get(pk=note_id).subjects == ["alex"]
    rows = [json.loads(line) for line in run("amem_search", "--agent", "alice", "--json", "ficus").splitlines()]
    assert rows[0]["id"] == note_id and rows[0]["via"] == "match"


def test_commands_report_engine_errors_as_one_line(alice, store):
    with pytest.raises(CommandError, match="quality"):
        run("amem_add", "--agent", "alice", "ok")
    with pytest.raises(CommandError, match="no active agent"):
        run("amem_search", "--agent", "ghost", "anything")


@pytest.mark.realmodel  # "what coffee does alex like" must find the flat white by meaning
def test_bootstrap_creates_admin_demo_agent_and_memories_once(store, db, offline_llm):
    first = run("amem_bootstrap", "--admin-password", "s3cret-pass")
    assert "admin user: admin" in first and "demo agent key:" in first
    demo_count = Note.objects.filter(agent_id="demo").count()
    assert demo_count >= 15
    # Through construction: every demo memory has keywords, tags and a context (the review queues'
    # examples are written by the episodic path and flagged directly: surfaces/demo/queues.py).
    memories = Note.objects.filter(agent_id="demo").exclude(sources__icontains="demo example")
    assert not memories.filter(keywords=[]).exists()
    assert not memories.filter(tags=[]).exists()
    assert not memories.filter(context="").exists()
    # One card waits in each review queue.
    assert "review examples:" in first
    assert waiting_by_agent(["demo"]) == {"demo": {"merges": 1, "conflicts": 1, "quality": 1}}
    second = run("amem_bootstrap")
    assert "exists" in second and "key" not in second.split("demo agent")[1].split("\n")[0]
    assert "review examples" not in second
    assert Note.objects.filter(agent_id="demo").count() == demo_count
    results = run("amem_search", "--agent", "demo", "what coffee does alex like")
    header, first, second, *_ = results.splitlines()
    assert header.split()[:3] == ["score", "cosine", "via"] and "flat white" in first
    # Ranked by the fused score, which is the first column: it never rises down the list.
    assert float(first.split()[0]) >= float(second.split()[0])


@pytest.fixture
def server_views_bound():
    """The live server's local views, imported before a test patches ``engine.retrieval.search.search``
    or ``engine.write.pipeline.add_memory``.

    The server runs in this process and its views bind ``search`` and ``add_memory`` when their module
    is first imported. Imported after the patch (this file run on its own), the server would call the
    patched function too and these tests would fail; imported first (the whole suite), it keeps the real one.
    """
    import surfaces.api.local  # noqa: F401


def test_search_goes_through_the_server_when_it_owns_the_index(
    alice, store, live_server, settings, monkeypatch, server_views_bound
):
    settings.AMEM_SERVER_URL = live_server.url
    run("amem_add", "--agent", "alice", "The greenhouse heater turns on below five degrees.")

    def locked(*args, **kwargs):
        raise IndexLocked("the embedded index is open in another process")

    monkeypatch.setattr("engine.retrieval.search.search", locked)  # this process may not open it; the server may
    rows = [json.loads(line) for line in run("amem_search", "--agent", "alice", "--json", "greenhouse").splitlines()]
    assert rows[0]["content"] == "The greenhouse heater turns on below five degrees."


def test_search_asks_a_running_server_first_without_searching_here(
    alice, store, live_server, settings, monkeypatch, server_views_bound
):
    from surfaces.local_bridge import local_token

    settings.AMEM_SERVER_URL = live_server.url
    run("amem_add", "--agent", "alice", "The greenhouse heater turns on below five degrees.")
    local_token()  # the server made it at start-up (amem_site/wsgi.py)

    def not_here(*args, **kwargs):
        raise AssertionError("searched in the command's process")

    monkeypatch.setattr("engine.retrieval.search.search", not_here)
    rows = [json.loads(line) for line in run("amem_search", "--agent", "alice", "--json", "greenhouse").splitlines()]
    assert rows[0]["content"] == "The greenhouse heater turns on below five degrees."


def test_without_a_server_a_locked_index_is_explained(alice, settings, monkeypatch, db):
    settings.AMEM_SERVER_URL = "http://127.0.0.1:9"

    def locked(*args, **kwargs):
        raise IndexLocked("the embedded index is open in another process.")

    monkeypatch.setattr("engine.retrieval.search.search", locked)
    with pytest.raises(CommandError, match=r"open in another process.*No server answered"):
        run("amem_search", "--agent", "alice", "anything")


def test_add_goes_through_the_server_when_it_owns_the_index(
    alice, store, live_server, settings, monkeypatch, server_views_bound
):
    settings.AMEM_SERVER_URL = live_server.url

    def locked(*args, **kwargs):
        raise IndexLocked("the embedded index is open in another process")

    monkeypatch.setattr("engine.write.pipeline.add_memory", locked)
    note_id = run("amem_add", "--agent", "alice", "The compost bin is emptied every second Friday.").strip()
    assert Note.objects.get(pk=note_id).content == "The compost bin is emptied every second Friday."


def test_the_local_token_is_made_once_whole_and_a_second_maker_reads_the_first(settings, tmp_path, monkeypatch):
    # With several web processes two may make the token at once: the second must take the first's.
    import os

    from surfaces import local_bridge

    settings.AMEM_DATA_DIR = tmp_path
    made = local_bridge.local_token()
    assert local_bridge.local_token() == made
    assert oct((tmp_path / "local.token").stat().st_mode & 0o777) == "0o600"
    (tmp_path / "local.token").unlink()

    real_link = os.link

    def another_process_first(source, target):
        (tmp_path / "local.token").write_text("the first process's token")
        real_link(source, target)

    monkeypatch.setattr(local_bridge.os, "link", another_process_first)
    assert local_bridge.local_token() == "the first process's token"
    assert [p.name for p in tmp_path.iterdir()] == ["local.token"]  # no draft left behind
