"""Linking: top-6 readable neighbours at cos ≥ 0.3, one judgement, bidirectional, back-links only where writable."""

from __future__ import annotations

import re

import pytest

from engine.write.pipeline import add_episodic, add_memory
from memories.models import Link, Note

UUID = re.compile(r"\[([0-9a-f-]{36})\]")

KITTEN = [
    "Caroline adopted a grey kitten called Mochi.",
    "Caroline's kitten Mochi sleeps on the windowsill.",
    "Mochi the kitten was vaccinated at the vet on Tuesday.",
    "Caroline bought a scratching post for her kitten.",
    "The kitten Mochi knocked a plant off the shelf.",
    "Caroline feeds Mochi wet food twice a day.",
    "Mochi the grey kitten hides under the sofa during storms.",
    "Caroline's cat Mochi is afraid of the vacuum cleaner.",
]


def _offered(provider) -> list[str]:
    return UUID.findall(provider.requests_for("link")[-1].prompt)


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_related_notes_are_linked_both_ways(alice, store):
    first = add_memory("Caroline adopted a grey kitten called Mochi.", alice)
    second = add_memory("Mochi the grey kitten loves chasing laser pointers.", alice)
    assert second.links == (str(first.note.pk),)
    pairs = set(Link.objects.values_list("source_id", "target_id"))
    assert pairs == {(second.note.pk, first.note.pk), (first.note.pk, second.note.pk)}
    assert first.note.events.filter(action="link").get().after == {"linked_from": str(second.note.pk)}


def test_at_most_six_candidates_are_offered_in_one_call(alice, store, provider):
    for text in KITTEN:
        add_episodic(text, alice)
    provider.reply_json({"links": []}, role="link")
    add_memory("Mochi the grey kitten loves chasing laser pointers.", alice)
    assert len(provider.requests_for("link")) == 1
    assert len(_offered(provider)) == 6


def test_candidates_below_cosine_03_are_not_offered(alice, store, provider):
    related = add_episodic("Caroline adopted a grey kitten called Mochi.", alice)
    add_episodic("Quarterly invoices are due on the fifth business day.", alice)
    provider.reply_json({"links": []}, role="link")
    add_memory("Mochi the grey kitten loves chasing laser pointers.", alice)
    assert _offered(provider) == [str(related.pk)]


def test_no_candidates_means_no_link_call(alice, store, provider):
    add_episodic("Quarterly invoices are due on the fifth business day.", alice)
    add_memory("Mochi the grey kitten loves chasing laser pointers.", alice)
    assert provider.requests_for("link") == []


def test_an_invented_id_never_becomes_a_link(alice, store, provider):
    real = add_episodic("Caroline adopted a grey kitten called Mochi.", alice)
    invented = "00000000-0000-4000-8000-000000000000"
    provider.reply_json({"links": [invented, str(real.pk)]}, role="link")
    result = add_memory("Mochi the grey kitten loves chasing laser pointers.", alice)
    assert result.links == (str(real.pk),)
    assert not Link.objects.filter(target_id=invented).exists()
    assert Link.objects.count() == 2


def test_no_back_link_is_written_into_a_note_the_caller_cannot_write(alice, bob, store, provider):  # B112
    shared = add_memory("Caroline adopted a grey kitten called Mochi.", alice, scope="shared").note
    provider.reply_json({"links": [str(shared.pk)]}, role="link")
    result = add_memory("Mochi the grey kitten loves chasing laser pointers.", bob)
    assert set(Link.objects.values_list("source_id", "target_id")) == {(result.note.pk, shared.pk)}
    assert not Note.objects.get(pk=shared.pk).events.filter(action="link").exists()


def test_another_agents_private_note_is_never_a_candidate(alice, bob, store, provider):
    secret = add_episodic("Caroline adopted a grey kitten called Mochi.", alice)
    add_memory("Mochi the grey kitten loves chasing laser pointers.", bob)
    assert all(secret.content not in r.prompt for r in provider.requests)
    assert not Link.objects.filter(target_id=secret.pk).exists()
