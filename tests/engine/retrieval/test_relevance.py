"""The recall floor reads a calibrated relevance, not the raw cosine (engine/retrieval/relevance.py)."""

from __future__ import annotations

import pytest

from engine.index.tokenize import tokenize
from engine.index_sync import indexer
from engine.layers import recall
from engine.retrieval import relevance_weights
from engine.retrieval.relevance import coverage, relevance
from engine.write.pipeline import EpisodicItem, add_episodic_batch


def test_coverage_is_the_share_of_distinct_query_terms_the_note_holds():
    terms = tokenize("ferry ferry harbour Lisbon", drop_stop_words=True)
    assert coverage(terms, "The ferry leaves the harbour at nine.") == pytest.approx(2 / 3)
    assert coverage(terms, "Nothing in common here.") == 0.0
    assert coverage([], "anything") == 0.0


def test_a_model_the_weights_were_not_fitted_for_is_read_by_its_words_only():
    terms = tokenize("Where does Alex live?", drop_stop_words=True)
    note = "Alex moved to Lisbon last spring."
    unfitted = relevance(terms, note, 0.95, 3.0, model="some-other-model")
    assert unfitted == relevance(terms, note, 0.0, 3.0, model=None)
    fitted = next(iter(relevance_weights.EMBEDDED))
    assert relevance(terms, note, 0.95, 3.0, model=fitted) != unfitted  # its cosine counts


def test_relevance_rises_with_the_cosine_and_with_shared_words():
    model = next(iter(relevance_weights.EMBEDDED))
    terms = tokenize("Where do I live these days?", drop_stop_words=True)
    assert relevance(terms, "x", 0.5, None, model=model) > relevance(terms, "x", 0.1, None, model=model)
    assert relevance(terms, "I live in Lisbon.", 0.2, 2.0, model=model) > relevance(terms, "x", 0.2, None, model=model)


@pytest.mark.realmodel
def test_the_worked_example_keeps_its_answer_and_an_unrelated_question_gets_no_notes(alice, store):
    """The OpenClaw README's example: the note that answers had a cosine of 0.29, under the old 0.3."""
    add_episodic_batch(
        alice,
        [
            EpisodicItem("I moved to Lisbon last month, with my dog Rex."),
            EpisodicItem("The quarterly report is due on the fifteenth; Dana reviews it."),
            EpisodicItem("My sister recommended a sourdough starter that needs feeding daily."),
        ],
    )
    indexer.sync_dirty()
    kept = recall.build(alice, "Where do I live these days?").notes
    assert [n["content"] for n in kept][:1] == ["I moved to Lisbon last month, with my dog Rex."], kept
    assert all(n["relevance"] >= relevance_weights.FLOOR for n in kept)
    assert recall.build(alice, "What is the boiling point of mercury in kelvin?").notes == []
    everything = recall.build(alice, "What is the boiling point of mercury in kelvin?", min_relevance=0).notes
    assert len(everything) == 3  # 0: no floor


def test_a_floor_outside_0_to_1_is_refused(alice, store):
    from engine.errors import InvalidInput

    with pytest.raises(InvalidInput, match="min_relevance"):
        recall.build(alice, "anything", min_relevance=1.5)
