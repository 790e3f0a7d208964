"""Evolution: the per-agent counter in the database, neighbour updates with history, validated ids."""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine import runtime
from engine.index.embeddings import from_bytes
from engine.text import embedding_text
from engine.write import evolution
from engine.write.pipeline import add_episodic, add_memory
from memories.models import Agent, Link, Note

UUID = re.compile(r"\[([0-9a-f-]{36})\]")
NEW = "Mochi the grey kitten loves chasing laser pointers."


@pytest.fixture
def every_write(engine_config):
    engine_config(evolve_every=1)


def _link_all(provider, *notes: Note) -> None:
    provider.reply_json({"links": [str(n.pk) for n in notes]}, role="link")


@pytest.mark.parametrize(
    "count, every, due", [(1, 20, False), (19, 20, False), (20, 20, True), (40, 20, True), (3, 1, True)]
)
def test_evolution_is_due_on_every_nth_count(count, every, due):
    assert evolution.due(count, every) is due


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_the_counter_lives_on_the_agent_and_counts_only_link_producing_writes(alice, bob, store):
    add_memory("Quarterly invoices are due on the fifth business day.", alice)  # nothing to link to
    add_memory("Caroline adopted a grey kitten called Mochi.", alice)  # links to nothing related
    add_memory(NEW, alice)  # links (offline: cos ≥ 0.5)
    assert [a.link_write_count for a in Agent.objects.order_by("pk")] == [1, 0]
    assert evolution.count_link_write(alice) == 2


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_evolution_runs_on_every_nth_link_producing_write(alice, store, provider, engine_config):
    engine_config(evolve_every=2)
    target = add_episodic("Caroline adopted a grey kitten called Mochi.", alice)
    for i in range(4):
        _link_all(provider, target)
        add_memory(f"{NEW} Observation number {i}: it jumped {i + 2} times.", alice)
    assert Agent.objects.get(pk="alice").link_write_count == 4
    assert len(provider.requests_for("evolve")) == 2


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_a_neighbour_update_is_applied_with_history_a_new_vector_and_a_dirty_mark(alice, store, provider, every_write):
    neighbour = add_episodic("Caroline adopted a grey kitten called Mochi.", alice)
    before = Note.objects.get(pk=neighbour.pk)
    _link_all(provider, neighbour)
    provider.reply_json(
        {
            "updates": [{"id": str(neighbour.pk), "context": "Mochi is a playful kitten.", "tags": ["pets", "play"]}],
            "suggested_connections": [str(neighbour.pk)],
        },
        role="evolve",
    )
    result = add_memory(NEW, alice)
    after = Note.objects.get(pk=neighbour.pk)
    assert result.evolved == (str(neighbour.pk),)
    assert (after.context, after.tags) == ("Mochi is a playful kitten.", ["pets", "play"])
    event = after.events.get(action="update_neighbor")
    assert event.before == {"context": "", "tags": []}
    assert event.after["triggered_by"] == str(result.note.pk)
    # A new revision, marked dirty and then indexed by the write's after-commit sync.
    assert after.revision > before.revision and not after.index_dirty and after.indexed_at is not None
    expected = runtime.embedder().encode_one(embedding_text(after.content, after.keywords, after.tags, after.context))
    assert np.allclose(from_bytes(after.embedding), expected, atol=1e-5)


def test_updates_and_connections_naming_other_ids_are_dropped(alice, store, provider, every_write):
    neighbour = add_episodic("Caroline adopted a grey kitten called Mochi.", alice)
    bystander = add_episodic("Caroline's kitten Mochi sleeps on the windowsill.", alice)
    _link_all(provider, neighbour)
    provider.reply_json(
        {
            "updates": [{"id": str(bystander.pk), "context": "Hijacked."}],
            "suggested_connections": [str(bystander.pk), "00000000-0000-4000-8000-000000000000"],
        },
        role="evolve",
    )
    result = add_memory(NEW, alice)
    assert result.evolved == ()
    assert Note.objects.get(pk=bystander.pk).context == ""
    assert not Link.objects.filter(source=result.note, target=bystander).exists()
    assert set(Link.objects.filter(source=result.note).values_list("target_id", flat=True)) == {neighbour.pk}


def test_at_most_three_writable_neighbours_are_offered(alice, store, provider, every_write):
    notes = [
        add_episodic(text, alice)
        for text in (
            "Caroline adopted a grey kitten called Mochi.",
            "Caroline's kitten Mochi sleeps on the windowsill.",
            "Mochi the kitten was vaccinated at the vet on Tuesday.",
            "The kitten Mochi knocked a plant off the shelf.",
            "Caroline feeds Mochi wet food twice a day.",
        )
    ]
    _link_all(provider, *notes)
    add_memory(NEW, alice)
    offered = UUID.findall(provider.requests_for("evolve")[0].prompt)
    assert len(offered) == 3 and set(offered) <= {str(n.pk) for n in notes}


def test_evolution_never_sees_notes_the_caller_cannot_read(alice, bob, store, provider, every_write):  # B113, B115
    private = add_episodic("Caroline's kitten Mochi has a secret vet diagnosis.", alice)
    public = add_memory("Caroline adopted a grey kitten called Mochi.", alice, scope="shared").note
    Note.objects.filter(pk=public.pk).update(writers=["alice", "bob"])
    Link.objects.get_or_create(source=public, target=private)  # the offline link rule may have made it
    _link_all(provider, public)
    already = len(provider.requests)
    add_memory(NEW, bob)
    prompts = [r.prompt for r in provider.requests[already:]]  # everything asked on bob's behalf
    assert any(public.content in p for p in provider_prompts(provider, "evolve"))
    assert all(private.content not in p for p in prompts)


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_a_readable_read_only_note_is_linked_one_way_and_not_evolved(
    alice, bob, store, provider, every_write, drain
):  # B114
    granted = add_episodic("Caroline's kitten Mochi has a vet appointment on Friday.", alice)
    Note.objects.filter(pk=granted.pk).update(readers=["alice", "bob"], index_dirty=True)
    drain()  # the grant reaches the index as an admin's edit would
    _link_all(provider, granted)
    result = add_memory(NEW, bob)
    assert granted.content in provider.requests_for("link")[0].prompt
    assert result.links == (str(granted.pk),)
    assert not Link.objects.filter(source=granted).exists()
    assert provider.requests_for("evolve") == []


def provider_prompts(provider, role: str) -> list[str]:
    return [r.prompt for r in provider.requests_for(role)]
