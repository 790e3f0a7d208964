"""The BM25 leg on its own: it indexes the context (the one recipe) and meets word forms through stems."""

from __future__ import annotations

from dataclasses import replace

from engine.retrieval.search import FULL, search
from engine.write.pipeline import add_episodic

BM25_ONLY = replace(FULL, dense=False, heat_boost=False)


def sources(results) -> set[str]:
    return {s for r in results for s in r.note.sources}


def test_a_word_only_in_the_context_finds_the_note(alice, store):
    add_episodic("Behind the bakery on Elm street.", alice, sources=["answer"], context="Where did you park the van?")
    add_episodic("The bakery opens at seven every morning.", alice, sources=["other"])
    assert sources(search("van", alice, limit=5, heat=False, links=False, pipeline=BM25_ONLY)) == {"answer"}


def test_another_form_of_a_word_finds_the_note(alice, store):
    add_episodic("Melanie finished three paintings of the lake.", alice, sources=["paint"])
    add_episodic("Caroline went to a support group meeting.", alice, sources=["group"])
    assert sources(search("did she paint", alice, limit=5, heat=False, links=False, pipeline=BM25_ONLY)) == {"paint"}
