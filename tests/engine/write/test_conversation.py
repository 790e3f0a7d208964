"""Conversation ingest: each turn a note carrying the turn before it; adjacent turns linked."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from engine import runtime
from engine.config import get_config
from engine.errors import InvalidInput, QualityRejected
from engine.index.embeddings import from_bytes
from engine.retrieval.search import Ranking, search
from engine.retrieval.surrounding import ADJACENT
from engine.text import embedding_text
from engine.write.conversation import StoredConversation, Turn, add_conversation, previous_turns
from memories.models import Link, Note, NoteEvent

WHEN = dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)


def chat() -> list[Turn]:
    return [
        Turn('Melanie said, "Where did you go camping last summer?"', "s1", "D1:1", WHEN),
        Turn('Caroline said, "We went to the mountains near the lake."', "s1", "D1:2", WHEN),
        Turn('Melanie said, "That sounds lovely, did the kids enjoy it?"', "s1", "D1:3", WHEN),
        Turn('Caroline said, "I started a new painting this week."', "s2", "D2:1", WHEN + dt.timedelta(days=7)),
    ]


def by_source(agent_id: str) -> dict[str, Note]:
    return {n.sources[0]: n for n in Note.objects.filter(agent_id=agent_id)}


def test_each_turn_keeps_its_text_and_gets_the_previous_turn_of_its_session_as_context(alice, store):
    add_conversation(alice, chat())
    notes = by_source("alice")
    assert notes["D1:2"].content == chat()[1].text  # stored content is the turn itself
    assert notes["D1:2"].context == chat()[0].text
    assert notes["D1:3"].context == chat()[1].text
    assert notes["D1:1"].context == "" and notes["D2:1"].context == ""  # first of each session
    assert notes["D2:1"].created_at == WHEN + dt.timedelta(days=7)


def test_the_vector_embeds_the_turn_with_its_context(alice, store):
    add_conversation(alice, chat())
    note = by_source("alice")["D1:2"]
    expected = runtime.embedder().encode_one(embedding_text(note.content, context=note.context))
    assert np.allclose(from_bytes(note.embedding), expected, atol=1e-5)


class TurnsAlone(Ranking):
    """No turns carried around a match: each turn competes for a slot on its own words."""

    context_span = 0


def test_an_answer_is_found_by_the_words_of_the_question_it_answers(alice, store):
    # "mountains near the lake" never says "camping": only the context (the question) does.
    add_conversation(alice, chat())
    hits = search("camping trip", alice, limit=2, heat=False, links=False, ranking=TurnsAlone())
    assert "D1:2" in {s for r in hits for s in r.note.sources}


def test_adjacent_turns_of_a_session_are_linked_both_ways_and_sessions_are_not(alice, store):
    add_conversation(alice, chat())
    notes = by_source("alice")
    pairs = {(str(a), str(b)) for a, b in Link.objects.values_list("source_id", "target_id")}
    one, two, three, other = (str(notes[k].pk) for k in ("D1:1", "D1:2", "D1:3", "D2:1"))
    assert pairs == {(one, two), (two, one), (two, three), (three, two)}
    assert set(Link.objects.values_list("reason", flat=True)) == {ADJACENT}
    assert other not in {p for pair in pairs for p in pair}


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_the_neighbouring_turns_ride_along_with_the_match(alice, store):
    add_conversation(alice, chat())
    results = search("mountains near the lake", alice, limit=1, heat=False)
    assert results[0].via == "match" and results[0].note.sources == ["D1:2"]
    assert [s.note.sources for s in results[0].surrounding] == [["D1:1"], ["D1:3"]]
    # The walk does not bring them again.
    assert not {"D1:1", "D1:3"} & {s for r in results[1:] for s in r.note.sources}


def test_without_links_no_link_rows_are_written(alice, store):
    add_conversation(alice, chat(), link_adjacent=False)
    assert Note.objects.count() == 4 and not Link.objects.exists()


def test_every_note_is_indexed_after_commit_and_has_a_create_event(alice, store, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        notes = add_conversation(alice, chat()).notes
    assert not Note.objects.filter(index_dirty=True).exists()
    assert NoteEvent.objects.filter(action="create", after__path="conversation").count() == len(notes)


def test_a_short_and_an_overlong_turn_are_skipped_and_every_other_turn_is_stored(alice, store):
    # one refused turn used to refuse the session, and the turn after an over-long
    # one was refused too (its context was the untruncated previous turn).
    limit = get_config().max_note_chars
    long_text = "Caroline pasted her whole diary. " * 1000  # ~33,000 characters
    assert len(long_text) > limit
    turns = [
        *chat()[:3],
        Turn("Bye", "s1", "D1:4", WHEN),
        Turn('Caroline said, "Wait, one more thing about the lake."', "s1", "D1:5", WHEN),
        Turn(long_text, "s1", "D1:6", WHEN),
        Turn('Melanie said, "That was a lot to read, but lovely."', "s1", "D1:7", WHEN),
        chat()[3],
    ]
    stored = add_conversation(alice, turns)
    assert [(s.position, s.reason.split()[0]) for s in stored.skipped] == [(3, "[quality]"), (5, "text")]
    assert "20000" in stored.skipped[1].reason
    notes = by_source("alice")
    assert set(notes) == {"D1:1", "D1:2", "D1:3", "D1:5", "D1:7", "D2:1"}
    assert [n.sources[0] for n in stored.notes] == ["D1:1", "D1:2", "D1:3", "D1:5", "D1:7", "D2:1"]
    assert notes["D1:5"].context == "Bye"  # a refused short turn is still the next turn's context
    assert len(notes["D1:7"].context) <= limit and long_text.strip().endswith(notes["D1:7"].context)
    pairs = {(a[0], b[0]) for a, b in Link.objects.values_list("source__sources", "target__sources")}
    assert {("D1:3", "D1:5"), ("D1:5", "D1:7")} <= pairs  # a skipped turn is stepped over


def test_a_turn_with_control_characters_is_skipped_and_never_the_next_turns_context(alice, store):
    # One bad turn used to sink the session: skipped itself, it still became the next turn's
    # context, which failed the context check, so the whole call was refused.
    turns = [*chat()[:2], Turn("Caroline said, \x07 the bell rang \x00 twice.", "s1", "D1:bad", WHEN), *chat()[2:]]
    stored = add_conversation(alice, turns)
    assert [s.position for s in stored.skipped] == [2]
    notes = by_source("alice")
    assert set(notes) == {"D1:1", "D1:2", "D1:3", "D2:1"}
    assert notes["D1:3"].context == ""


def test_a_conversation_where_every_turn_is_refused_writes_nothing(alice, store):
    with pytest.raises(QualityRejected):
        add_conversation(alice, [Turn("Bye", "s1"), Turn("x" * 30_000, "s1")])
    assert not Note.objects.exists() and not Link.objects.exists()


def test_a_malformed_turn_writes_nothing_even_beside_good_ones(alice, store):
    with pytest.raises(InvalidInput):
        add_conversation(alice, [*chat(), Turn(42, "s2")])  # type: ignore[arg-type]
    assert not Note.objects.exists()


def test_a_naive_time_is_refused_before_anything_is_written(alice, store):
    turns = [Turn("A turn with a time but no time zone.", "s1", "x", dt.datetime(2023, 5, 8))]
    with pytest.raises(InvalidInput):
        add_conversation(alice, turns)
    assert not Note.objects.exists()


def test_previous_turns_only_within_one_session():
    turns = [Turn("a", "1"), Turn("b", "1"), Turn("c", "2"), Turn("d", "1")]
    assert previous_turns(turns) == ["", "a", "", ""]


def test_an_empty_conversation_writes_nothing(alice, store):
    assert add_conversation(alice, []) == StoredConversation([], [])
    assert not Note.objects.exists()
