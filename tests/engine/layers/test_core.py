"""Core memory: dot-path edits, the size limit, undo, isolation."""

from __future__ import annotations

import pytest

from engine.layers import core
from memories.models import CoreBlock, CoreEvent


def test_dot_path_replace_and_append(as_alice):
    r = as_alice.post("/core/user/replace", {"path": "name", "value": "Alex"})
    assert r.status_code == 200, r.content
    as_alice.post("/core/user/replace", {"path": "home.city", "value": "Berlin"})
    as_alice.post("/core/user/append", {"path": "likes", "value": "tea"})
    as_alice.post("/core/user/append", {"path": "likes", "value": {"food": "ramen"}})
    r = as_alice.post("/core/user/replace", {"path": "likes.1.food", "value": "udon"})
    assert r.json()["value"] == {"name": "Alex", "home": {"city": "Berlin"}, "likes": ["tea", {"food": "udon"}]}
    assert r.json()["size"] == core.size_of(r.json()["value"])
    assert as_alice.get("/core/user").json()["value"]["home"] == {"city": "Berlin"}
    assert [b["name"] for b in as_alice.get("/core").json()["blocks"]] == ["user"]


def test_bad_paths_are_400_and_change_nothing(as_alice):
    as_alice.post("/core/user/replace", {"path": "likes", "value": ["tea"]})
    for path, op in (("likes.5", "replace"), ("likes.x", "replace"), ("a..b", "replace"), ("likes.0", "append")):
        r = as_alice.post(f"/core/user/{op}", {"path": path, "value": 1})
        assert r.status_code == 400, (path, op, r.content)
    assert CoreBlock.objects.get().value == {"likes": ["tea"]}
    assert as_alice.post("/core/Bad%20Name/replace", {"path": "", "value": {}}).status_code == 400
    assert as_alice.post("/core/user/replace", {"path": "", "value": 1, "extra": 1}).status_code == 400


def test_over_the_size_limit_is_422_and_the_block_is_unchanged(as_alice, settings):
    settings.AMEM_CORE_BLOCK_LIMIT = 100
    as_alice.post("/core/notes/replace", {"path": "a", "value": "x" * 50})
    before = CoreBlock.objects.get().value
    events = CoreEvent.objects.count()
    r = as_alice.post("/core/notes/replace", {"path": "b", "value": "y" * 60})
    assert r.status_code == 422 and "limit" in r.json()["detail"]
    assert as_alice.post("/core/notes/append", {"path": "c", "value": "z" * 60}).status_code == 422
    assert CoreBlock.objects.get().value == before
    assert CoreEvent.objects.count() == events
    # A brand-new block over the limit is not created at all.
    assert as_alice.post("/core/big/replace", {"path": "", "value": "w" * 200}).status_code == 422
    assert not CoreBlock.objects.filter(name="big").exists()


def test_default_limit_is_3_kb(as_alice):
    assert as_alice.post("/core/x/replace", {"path": "", "value": "a" * 3000}).status_code == 200
    assert as_alice.post("/core/x/replace", {"path": "", "value": "a" * 3100}).status_code == 422


def test_undo_restores_the_value_before_and_is_recorded(alice):
    core.replace(alice, "persona", "tone", "formal")
    core.replace(alice, "persona", "tone", "casual")
    last = CoreEvent.objects.order_by("-pk").first()
    undo = core.undo(last, "reviewer")
    assert CoreBlock.objects.get().value == {"tone": "formal"}
    assert (undo.action, undo.before, undo.after) == ("undo", {"tone": "casual"}, {"tone": "formal"})
    last.refresh_from_db()
    assert last.undone_by == undo
    with pytest.raises(Exception, match="already undone"):
        core.undo(last, "reviewer")


def test_undo_is_refused_when_a_later_change_exists(alice):
    core.replace(alice, "persona", "tone", "formal")
    first = CoreEvent.objects.get()
    core.replace(alice, "persona", "tone", "casual")
    with pytest.raises(Exception, match="later changes"):
        core.undo(first, "reviewer")
    assert CoreBlock.objects.get().value == {"tone": "casual"}


def test_another_agents_core_memory_is_invisible(as_alice, as_bob):
    as_alice.post("/core/user/replace", {"path": "secret", "value": "s3cret"})
    as_alice.post("/core/user/replace", {"path": "x", "value": 1, "subject": "alex"})
    assert as_bob.get("/core/user").status_code == 404
    assert as_bob.get("/core/user?subject=alex").status_code == 404
    assert as_bob.get("/core").json() == {"blocks": []}
    # Bob editing "user" makes his own block, never touches Alice's.
    as_bob.post("/core/user/replace", {"path": "mine", "value": True})
    assert as_alice.get("/core/user").json()["value"] == {"secret": "s3cret"}
    assert as_alice.get("/core/user?subject=alex").json()["value"] == {"x": 1}


@pytest.mark.parametrize(
    "value",
    ["Al\x00ex", {"name": "Al\ud800ex"}, {"bad\x07key": "x"}, ["ok", {"deep": ["\x1b"]}]],
    ids=["nul", "lone-surrogate", "bell-in-a-key", "escape-deep-in-a-list"],
)
def test_a_control_character_anywhere_in_the_value_is_400_and_changes_nothing(as_alice, value):
    as_alice.post("/core/user/replace", {"path": "name", "value": "Alex"})
    events = CoreEvent.objects.count()
    for op in ("replace", "append"):
        r = as_alice.post(f"/core/user/{op}", {"path": "likes", "value": value})
        assert r.status_code == 400, r.content
        assert "control characters" in r.json()["detail"]
    assert CoreBlock.objects.get().value == {"name": "Alex"}
    assert CoreEvent.objects.count() == events


def test_an_undo_can_itself_be_undone(alice):
    core.replace(alice, "persona", "tone", "formal")
    block = core.replace(alice, "persona", "tone", "casual")
    undo = core.undo(block.events.order_by("-pk").first(), "reviewer")
    redo = core.undo(undo, "reviewer")
    assert CoreBlock.objects.get().value == {"tone": "casual"}
    assert (redo.action, redo.after) == ("undo", {"tone": "casual"})
