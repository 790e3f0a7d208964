"""What a search may show: database read-back, Mode B, subjects on both legs (B131–B133)."""

from __future__ import annotations

import pytest

from engine.index.store import AnyOf, Empty, Eq
from engine.retrieval.search import search
from engine.write.pipeline import add_episodic
from memories.models import Note

from .conftest import QUERY, RecordingStore, ScriptedDense, at_angle, link, put


def test_a_retired_note_is_never_returned_even_when_the_index_says_active(alice, any_store):
    note = put(alice, "The vault code is written on the blue card.", at_angle(0))
    # Retire behind the index's back: no dirty mark, so the index still holds it as active.
    Note.objects.filter(pk=note.pk).update(is_active=False, index_dirty=False)
    assert search("vault code blue card", alice, query_vector=QUERY) == []


def test_a_note_that_became_foreign_is_never_returned_from_a_stale_index(alice, bob, any_store):
    note = put(bob, "Bob's note on the vault code.", at_angle(0), readers=["bob", "alice"])
    assert [r.note for r in search("vault code", alice, query_vector=QUERY)] == [note]
    Note.objects.filter(pk=note.pk).update(readers=["bob"], index_dirty=False)
    assert search("vault code", alice, query_vector=QUERY) == []


def test_links_never_lead_to_retired_or_foreign_notes(alice, bob, any_store):
    hit = put(alice, "The hit note about the harbour.", at_angle(0))
    retired = put(alice, "A retired note on sailing.", at_angle(30), is_active=False)
    foreign = put(bob, "Bob's private note on sailing.", at_angle(30))
    link(hit, retired), link(hit, foreign)
    assert [r.note for r in search("harbour", alice, limit=1, query_vector=QUERY)] == [hit]


def test_a_mode_b_agent_sees_only_its_own_collection(make_agent, alice, any_store):
    vault = make_agent("vault", collection="vault")
    own = add_episodic("The launch code is orange-falcon-12.", vault)
    other = add_episodic("The launch code is green-heron-34.", alice, scope="shared")
    assert [r.note for r in search("launch code", vault, limit=10)] == [own]
    assert [r.note for r in search("launch code", alice, limit=10)] == [other]


def test_the_subject_reaches_both_the_dense_and_the_bm25_leg(alice, store, swap_store):  # B131
    put(alice, "Alex likes hiking in the hills.", at_angle(0), subjects=["alex"])
    recorder = swap_store(RecordingStore(store))
    search("hiking", alice, subject="alex", query_vector=QUERY)
    expected = AnyOf((Eq("subjects", "alex"), Empty("subjects")))
    assert expected in recorder.filters["dense"][0].must
    assert expected in recorder.filters["sparse"][0].must


def test_without_a_subject_neither_leg_is_scoped(alice, store, swap_store):  # B132
    put(alice, "Alex likes hiking in the hills.", at_angle(0), subjects=["alex"])
    recorder = swap_store(RecordingStore(store))
    search("hiking", alice, query_vector=QUERY)
    for flt in recorder.filters["dense"] + recorder.filters["sparse"]:
        assert not any("subjects" in repr(c) for c in flt.must)


@pytest.mark.parametrize(
    "subject, expected",
    [
        ("alex", {"alex", "both", "nobody"}),
        ("sam", {"sam", "both", "nobody"}),
        (None, {"alex", "sam", "both", "nobody"}),
    ],
)
def test_a_subject_sees_its_notes_shared_ones_and_world_facts(alice, any_store, subject, expected):  # B133
    for name, subjects in (("alex", ["alex"]), ("sam", ["sam"]), ("both", ["alex", "sam"]), ("nobody", [])):
        put(alice, f"{name} probe note about hiking", at_angle(10), subjects=subjects)
    seen = {
        r.note.content.split()[0] for r in search("hiking probe", alice, limit=10, subject=subject, query_vector=QUERY)
    }
    assert seen == expected


@pytest.mark.parametrize("subject", ["alex", "sam"])
def test_the_lexical_leg_alone_respects_the_subject(alice, store, swap_store, subject):
    put(alice, "alex probe note about zeppelins", at_angle(80), subjects=["alex"])
    put(alice, "sam probe note about zeppelins", at_angle(80), subjects=["sam"])
    swap_store(ScriptedDense(store, []))  # only BM25 can find anything now
    seen = {
        r.note.content.split()[0] for r in search("zeppelins", alice, limit=10, subject=subject, query_vector=QUERY)
    }
    assert seen == {subject}
