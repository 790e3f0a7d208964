"""CRUD gate: the update guard (B033–B043), ops end to end, one bad op never cancels the others."""

from __future__ import annotations

import numpy as np
import pytest

from engine.config import get_config
from engine.errors import NotFound, PermissionDenied
from engine.llm.types import CrudOp
from engine.retrieval.search import search
from engine.write import crud
from engine.write.edit import retire_memory, update_memory
from engine.write.pipeline import add_episodic, add_memory
from memories.models import LlmCall, Note

STAGING = "The staging database runs MySQL 8 on a shared host."
LAPTOP = "The user's old laptop is a ThinkPad X220."
USER = "We moved the staging database from MySQL to PostgreSQL 16 last week; my old ThinkPad is gone."


def unit(angle_deg: float) -> np.ndarray:
    a = np.radians(angle_deg)
    return np.array([np.cos(a), np.sin(a)], dtype=np.float32)


@pytest.mark.parametrize(
    "new, target, threshold, accepted",
    [
        (unit(0), unit(0), 0.35, True),  # B033 identical
        (unit(34.4), unit(0), 0.35, True),  # B034 cos ≈ 0.825, a rephrase
        (unit(90), unit(0), 0.35, False),  # B035 orthogonal
        (unit(180), unit(0), 0.35, False),  # B036 opposite
        (unit(34.4), unit(0), 0.9, False),  # B037 stricter threshold
        (np.zeros(0, dtype=np.float32), unit(0), 0.35, False),  # B038 empty new vector
        (unit(0), np.zeros(0, dtype=np.float32), 0.35, False),  # B038 empty target
        (unit(0), np.ones(3, dtype=np.float32), 0.35, False),  # B038 dimension mismatch
        (unit(90), unit(0), 0.0, True),  # B043 threshold 0 disables the guard
    ],
)
def test_the_update_guard(new, target, threshold, accepted):
    assert crud.update_guard(new, target, threshold) is accepted


def test_the_guard_threshold_defaults_to_035_and_follows_configuration(engine_config):  # B039, B040
    assert get_config().crud_update_min_sim == 0.35
    engine_config(crud_update_min_sim=0.7)
    assert get_config().crud_update_min_sim == 0.7


def _shown(agent) -> list[str]:
    return [r.note.content for r in search(USER, agent, limit=5, heat=False, links=False)]


def test_a_turn_updates_deletes_and_adds_and_a_too_short_fact_is_skipped_alone(alice, store, provider):
    staging = add_episodic(STAGING, alice)
    laptop = add_episodic(LAPTOP, alice)
    shown = _shown(alice)
    fact = "Staging runs PostgreSQL 16 (was MySQL 8)."
    provider.reply_json(
        [
            {"action": "UPDATE", "existing_idx": shown.index(STAGING), "fact": fact},
            {"action": "NEW", "fact": "ok"},
            {"action": "DELETE", "existing_idx": shown.index(LAPTOP), "fact": LAPTOP},
        ],
        role="crud",
    )
    construct = {"keywords": ["PostgreSQL 16", "staging"], "tags": ["database"], "context": "Staging's database."}
    provider.reply_json(construct, role="construct")
    result = crud.decide_and_apply([("user", USER), ("assistant", "Noted!")], alice, sources=["turn-7"])
    assert [(o.action, o.status) for o in result.ops] == [
        ("UPDATE", crud.APPLIED),
        ("NEW", crud.SKIPPED),
        ("DELETE", crud.APPLIED),
    ]
    assert "quality" in result.ops[1].reason
    updated = Note.objects.get(pk=staging.pk)
    assert updated.content == "Staging runs PostgreSQL 16 (was MySQL 8)." and updated.sources == ["turn-7"]
    assert updated.events.get(action="crud_update").before["content"] == STAGING  # B138
    assert updated.keywords == ["PostgreSQL 16", "staging"]  # re-constructed, not stale
    retired = Note.objects.get(pk=laptop.pk)
    assert not retired.is_active and retired.events.filter(action="retire").exists()
    assert Note.objects.count() == 2  # nothing hard-deleted, nothing extra stored


def test_an_update_failing_the_guard_is_stored_as_a_new_memory(alice, store, provider):
    add_episodic(STAGING, alice)
    add_episodic(LAPTOP, alice)
    shown = _shown(alice)
    fact = "Staging runs PostgreSQL 16 (was MySQL 8)."
    provider.reply_json([{"action": "UPDATE", "existing_idx": shown.index(LAPTOP), "fact": fact}], role="crud")
    result = crud.decide_and_apply([("user", USER)], alice)
    (op,) = result.ops
    assert op.status == crud.STORED_AS_NEW and "guard" in op.reason
    assert Note.objects.get(content=LAPTOP).is_active
    assert Note.objects.filter(content=fact).exists()


def test_an_op_on_a_read_only_or_out_of_range_memory_is_skipped_and_the_rest_applies(alice, bob, store):
    shared = add_episodic("Team lunch is on Thursdays at the Thai place.", bob, scope="shared")
    ops = [
        CrudOp("UPDATE", "Team lunch moved to Fridays at the Thai place.", 0),
        CrudOp("DELETE", "", 5),
        CrudOp("NEW", "Alice is vegetarian since last spring."),
    ]
    outcomes = crud.apply_ops(ops, [shared], alice)
    assert [o.status for o in outcomes] == [crud.SKIPPED, crud.SKIPPED, crud.APPLIED]
    assert "read-only" in outcomes[0].reason and "out of range" in outcomes[1].reason
    assert Note.objects.get(pk=shared.pk).content == "Team lunch is on Thursdays at the Thai place."
    assert Note.objects.filter(content="Alice is vegetarian since last spring.", owner="alice").exists()


def test_chit_chat_asks_no_model_and_changes_nothing(alice, store, provider):
    add_episodic(STAGING, alice)
    assert crud.decide_and_apply([("user", "thanks!"), ("assistant", "You're welcome.")], alice).ops == ()
    assert provider.requests == []


def test_the_crud_look_up_does_not_heat_the_memories_it_shows(alice, store):
    note = add_episodic(STAGING, alice)
    crud.decide_and_apply([("user", USER)], alice)
    assert Note.objects.get(pk=note.pk).retrieval_count == 0


def test_offline_the_gate_stores_durable_user_statements(alice, store):
    turn = [
        {"role": "user", "content": "I prefer answers in short bullet points."},
        {"role": "assistant", "content": "OK"},
    ]
    result = crud.decide_and_apply(turn, alice)
    assert [(o.action, o.status) for o in result.ops] == [("NEW", crud.APPLIED)]
    assert LlmCall.objects.filter(role="crud", outcome="offline").exists()


def test_an_owner_update_replaces_the_text_and_keeps_the_original(alice, store):  # B138
    note = add_memory("The backup job runs every night at two.", alice).note
    update_memory(note.pk, "The backup job runs every night at three.", alice)
    stored = Note.objects.get(pk=note.pk)
    assert stored.content == "The backup job runs every night at three."
    assert stored.events.get(action="crud_update").before["content"] == "The backup job runs every night at two."


def test_a_stranger_can_neither_update_nor_retire_and_nothing_changes(alice, bob, store):  # B140, B141
    private = add_memory("The backup job runs every night at two.", alice).note
    shared = add_memory("The office wifi password rotates on the first Monday.", alice, scope="shared").note
    with pytest.raises(NotFound):
        update_memory(private.pk, "The backup job runs every night at four.", bob)
    with pytest.raises(PermissionDenied):
        update_memory(shared.pk, "The office wifi password never rotates at all.", bob)
    with pytest.raises(PermissionDenied):
        retire_memory(shared.pk, bob)
    assert Note.objects.get(pk=private.pk).content == "The backup job runs every night at two."
    assert Note.objects.filter(is_active=True).count() == 2
    retire_memory(shared.pk, alice)
    assert not Note.objects.get(pk=shared.pk).is_active
