"""BM25's average note length is the agent's own, kept as notes are indexed (engine/index_sync/lexical_length.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.pipeline import FULL
from engine.erasure import erase_note
from engine.index_sync import indexer, lexical_length
from engine.retrieval.search import search
from engine.write.pipeline import add_episodic
from memories.models import LexicalStats, Note

BM25_ONLY = replace(FULL, dense=False, heat_boost=False)


def long_answer(i: int, extra: str = "") -> str:
    """About 150 terms of words no query here uses, distinct per note."""
    return " ".join(f"zeta{i}x{j}" for j in range(150)) + extra


def stats(agent_id: str = "alice") -> LexicalStats:
    return LexicalStats.objects.get(pk=agent_id)


def test_each_agent_counts_its_own_notes(alice, bob, store):
    add_episodic("one two three four", alice)
    add_episodic("one two three four five six seven eight nine ten eleven twelve", alice)
    add_episodic("short note", bob)
    assert (stats("alice").notes, stats("alice").terms) == (2, 4 + 12)
    assert (stats("bob").notes, stats("bob").terms) == (1, 2)
    assert [n.lexical_length for n in Note.objects.filter(agent_id="alice").order_by("created_at")] == [4, 12]


def test_an_average_that_moves_a_quarter_rewrites_the_agents_other_notes(alice, bob, store):
    first = add_episodic("one two three four", alice)
    other_agent = add_episodic("short note", bob)
    assert stats().indexed_average == 4
    # 4 → (4 + 5) / 2 = 4.5 is within the quarter: nothing else is rewritten.
    add_episodic("one two three four five", alice)
    assert not Note.objects.get(pk=first.pk).index_dirty
    # → (4 + 5 + 30) / 3 = 13: the first two are written again with it, bob's are not.
    add_episodic(" ".join(f"w{i}" for i in range(30)), alice)
    assert stats().indexed_average == pytest.approx(13.0)
    assert Note.objects.get(pk=first.pk).index_dirty
    assert not Note.objects.get(pk=other_agent.pk).index_dirty
    assert indexer.sync_dirty().indexed == 2
    assert stats().notes == 3  # written again, counted once


def test_an_erased_note_is_counted_out(alice, store):
    kept = add_episodic("one two three four", alice)
    gone = add_episodic("one two three four five six", alice)
    erase_note(gone.pk, alice, actor="test")
    indexer.sync_dirty()
    assert (stats().notes, stats().terms) == (1, 4)
    assert Note.objects.get(pk=kept.pk).lexical_length == 4


def test_an_index_written_before_the_average_was_kept_is_rewritten_once(alice, store):
    notes = [add_episodic(f"note number {i} about the weather", alice) for i in range(3)]
    LexicalStats.objects.all().delete()
    Note.objects.update(lexical_length=None)
    lexical_length.record({notes[0]: 6})
    assert sorted(Note.objects.filter(index_dirty=True).values_list("pk", flat=True)) == sorted(n.pk for n in notes[1:])


def test_a_rare_word_in_a_long_answer_outranks_a_stock_phrase_in_a_short_opener(alice, store):
    """With the constant 24 for notes that average about 120 terms, the 150-term answer's weights
    were cut to a third and the short openers' doubled: "ready" in six openers beat the one rare
    word the question is about."""
    for i in range(6):
        add_episodic(f"Hi, I'm ready for session {i}, what's next?", alice, sources=[f"opener {i}"])
    for i in range(13):
        add_episodic(long_answer(i), alice, sources=[f"answer {i}"])
    add_episodic(long_answer(99, " and the compost heap finally worked"), alice, sources=["compost"])
    indexer.sync_dirty()
    assert stats().indexed_average > 80  # within a quarter of the real 108
    results = search("ready compost", alice, limit=3, heat=False, links=False, ranking=BM25_ONLY)
    assert results[0].note.sources == ["compost"]
