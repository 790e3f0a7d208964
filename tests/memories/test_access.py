"""Read/write rules (B019–B032), Mode A/B isolation and subject scoping on a real index."""

from __future__ import annotations

import pytest

from engine.errors import NotFound, PermissionDenied
from engine.retrieval.search import search
from engine.write.pipeline import add_episodic
from memories import access
from memories.models import Note


def note(owner="main", readers=(), writers=(), active=True) -> Note:
    return Note(owner=owner, readers=list(readers), writers=list(writers), is_active=active)


@pytest.mark.parametrize(
    "n, caller, allowed",
    [
        (note(writers=["main"]), "main", True),  # B019
        (note(writers=["main", "dev"]), "dev", True),  # B020
        (note(writers=["*"]), "anyone", True),  # B021
        (note(writers=["main"]), "dev", False),  # B022
        (note(writers=["main"]), "game-persona", False),  # B023
        (note(writers=["dev"]), "main", True),  # B024 owner always wins
        (note(writers=[]), "dev", False),  # B025
    ],
)
def test_write_rules(n, caller, allowed):
    assert access.can_write(caller, n) is allowed


@pytest.mark.parametrize(
    "n, caller, allowed",
    [
        (note(readers=["main"]), "main", True),  # B026
        (note(readers=["main", "dev"]), "dev", True),  # B027
        (note(readers=["*"]), "anyone", True),  # B028
        (note(readers=["main"]), "dev", False),  # B029
        (note(readers=["dev"]), "main", True),  # B030
        (note(readers=[]), "dev", False),  # B031
    ],
)
def test_read_rules(n, caller, allowed):
    assert access.can_read(caller, n) is allowed


def test_public_read_does_not_grant_write():  # B032
    n = note(readers=["*"], writers=["main"])
    assert access.can_read("dev", n) and not access.can_write("dev", n)


def test_a_retired_note_is_neither_readable_nor_writable():
    n = note(readers=["*"], writers=["*"], active=False)
    assert not access.can_read("main", n) and not access.can_write("main", n)


def test_by_id_reads_hide_foreign_notes_and_refuse_read_only_writes(alice, bob, store):
    private = add_episodic("Alice keeps her private diary in a notebook.", alice)
    shared = add_episodic("The office wifi password changes every month.", alice, scope="shared")
    assert access.get_note_for(alice, private.pk) == private
    with pytest.raises(NotFound):
        access.get_note_for(bob, private.pk)
    with pytest.raises(NotFound):
        access.get_note_for(bob, "not-a-uuid")
    assert access.get_note_for(bob, shared.pk) == shared
    with pytest.raises(PermissionDenied):
        access.get_note_for_write(bob, shared.pk)
    assert access.get_note_for_write(alice, shared.pk) == shared


def test_mode_a_agents_never_see_each_others_private_notes(alice, bob, any_store):  # B137
    add_episodic("Alice's token zebra-quartz-77 is private to her.", alice)
    assert search("zebra-quartz-77", bob) == []
    assert next(r.note.content for r in search("zebra-quartz-77", alice)).startswith("Alice's token")


def test_shared_notes_are_visible_to_every_mode_a_agent(alice, bob, any_store):
    add_episodic("Team lunch is on Thursdays at the Thai place.", alice, scope="shared")
    hits = search("when is team lunch", bob)
    assert hits and hits[0].note.agent_id == "shared"


def test_a_mode_b_agent_is_isolated_both_ways(make_agent, alice, any_store):
    vault = make_agent("vault", collection="vault_notes")
    add_episodic("Vault secret: the launch code is orange-falcon.", vault)
    add_episodic("Everyone may know the cafeteria opens at eight.", alice, scope="shared")
    assert all(r.note.agent_id != "vault" for r in search("launch code orange-falcon", alice, limit=10))
    assert all(r.note.agent_id == "vault" for r in search("cafeteria opens", vault, limit=10))
    assert search("launch code orange-falcon", vault)[0].note.agent_id == "vault"
    assert "vault_notes" in any_store.collections()


def test_subject_scoping_sees_the_subject_and_world_facts_only(alice, any_store):  # B133
    add_episodic("Alex likes hiking in the Alps every summer.", alice, subjects=["alex"])
    add_episodic("Sam likes hiking in the Rockies every autumn.", alice, subjects=["sam"])
    add_episodic("Alex and Sam went hiking together in Norway.", alice, subjects=["alex", "sam"])
    add_episodic("Hiking boots should be broken in before long trips.", alice)

    def seen(subject):
        return {r.note.content.split()[0] for r in search("hiking", alice, limit=10, subject=subject)}

    assert seen("alex") == {"Alex", "Hiking"}
    assert seen("sam") == {"Sam", "Alex", "Hiking"} and "Alps" not in str(search("hiking", alice, subject="sam"))
    assert len(search("hiking", alice, limit=10)) == 4
