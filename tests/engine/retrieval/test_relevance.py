"""The recall floor reads a calibrated relevance, not the raw cosine (engine/retrieval/relevance.py)."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.index.tokenize import tokenize
from engine.index_sync import indexer
from engine.layers import recall
from engine.retrieval import relevance_weights
from engine.retrieval.relevance import background, coverage, relevance
from engine.write.pipeline import EpisodicItem, add_episodic_batch

FITTED = next(iter(relevance_weights.EMBEDDED))


def test_coverage_is_the_share_of_distinct_query_terms_the_note_holds():
    terms = tokenize("ferry ferry harbour Lisbon", drop_stop_words=True)
    assert coverage(terms, "The ferry leaves the harbour at nine.") == pytest.approx(2 / 3)
    assert coverage(terms, "Nothing in common here.") == 0.0
    assert coverage([], "anything") == 0.0


def test_the_background_is_the_mean_cosine_of_the_first_eight_matches():
    assert background([0.5, 0.3, 0.1]) == pytest.approx(0.3)
    assert background([0.9] * 8 + [0.0] * 20) == pytest.approx(0.9)
    assert background([]) == 0.0


def test_a_model_without_fitted_weights_or_a_query_without_a_vector_has_no_relevance(caplog):
    terms = tokenize("Where does Alex live?", drop_stop_words=True)
    note = "Alex moved to Lisbon last spring."
    assert relevance(terms, note, 0.95, 3.0, model="some-other-model", background=0.2) is None
    assert "recall floor off for the embedding model some-other-model" in caplog.text
    assert 0 < (relevance(terms, note, 0.95, 3.0, model=FITTED, background=0.2) or 0) < 1
    # Without a vector (a Chinese query on the English-only model) there is none either: a words-only
    # model fitted on long dialogue openings gave a short question's answer 0.001.
    assert relevance(terms, note, 0.0, 3.0, model=None, background=0.0) is None


def test_relevance_rises_with_the_cosine_the_lead_over_the_background_and_shared_words():
    terms = tokenize("Where do I live these days?", drop_stop_words=True)

    def rel(content: str, similarity: float, bm25: float | None = None, usual: float = 0.2) -> float:
        value = relevance(terms, content, similarity, bm25, model=FITTED, background=usual)
        assert value is not None
        return value

    assert rel("x", 0.5) > rel("x", 0.1)
    assert rel("x", 0.33, usual=0.05) > rel("x", 0.33, usual=0.4)
    assert rel("I live in Lisbon.", 0.2, 2.0) > rel("x", 0.2)


@pytest.mark.realmodel
def test_the_worked_example_keeps_its_answer_and_a_stricter_floor_leaves_an_unrelated_question_empty(alice, store):
    """The OpenClaw README's example: the note that answers has a cosine of 0.33 (0.29 in the report
    that found it dropped by the old cosine floor of 0.3), below most unrelated turns of LoCoMo."""
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
    # A stricter floor, asked for, keeps the answer and gives a question nothing bears on no notes.
    strict = recall.build(alice, "Where do I live these days?", min_relevance=0.05).notes
    assert [n["content"] for n in strict] == ["I moved to Lisbon last month, with my dog Rex."], strict
    unrelated = "What is the boiling point of mercury in kelvin?"
    assert recall.build(alice, unrelated, min_relevance=0.05).notes == []
    assert len(recall.build(alice, unrelated, min_relevance=0).notes) == 3  # 0: no floor


def test_a_floor_outside_0_to_1_is_refused(alice, store):
    with pytest.raises(InvalidInput, match="min_relevance"):
        recall.build(alice, "anything", min_relevance=1.5)


@pytest.mark.realmodel
def test_a_chinese_question_keeps_its_answer_whatever_the_floor(alice, store):
    add_episodic_batch(
        alice,
        [EpisodicItem("我奶奶在老家院子里养蜜蜂，每年秋天收蜂蜜。"), EpisodicItem("我哥哥住在成都，喜欢下围棋。")],
    )
    indexer.sync_dirty()
    kept = recall.build(alice, "家里谁养蜜蜂？", min_relevance=0.5).notes
    assert "我奶奶在老家院子里养蜜蜂，每年秋天收蜂蜜。" in [n["content"] for n in kept]
    assert all(n["relevance"] is None for n in kept)


@pytest.mark.realmodel
def test_a_matchs_relevance_does_not_depend_on_the_limit(alice, store):
    from engine.retrieval.search import search

    texts = [f"Note {i}: the harbour ferry timetable changes in spring, week {i}." for i in range(12)]
    add_episodic_batch(
        alice, [EpisodicItem("I moved to Lisbon last month, with my dog Rex."), *map(EpisodicItem, texts)]
    )
    indexer.sync_dirty()
    one = search("Where do I live these days?", alice, limit=1, heat=False, links=False)
    eight = search("Where do I live these days?", alice, limit=8, heat=False, links=False)
    assert one[0].note == eight[0].note
    assert eight[0].relevance is not None  # the default model has fitted weights
    assert one[0].relevance == pytest.approx(eight[0].relevance)
