"""The offline pair judge: what it reads of a pair, and the reason it gives a person."""

from __future__ import annotations

import pytest

from engine.judgments import pair_judge
from engine.reading.same_statement import near_duplicate
from engine.reading.statements import read


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Zoe prefers tea to coffee.", "Zoe prefers coffee to tea these days."),
        ("Ana takes her coffee with milk.", "Ana takes her coffee without milk."),
        ("Tom lives in Leeds.", "Tom's brother lives in Leeds."),
        ("Ana lives in Porto.", "Does Ana still live in Porto?"),
        ("Priya is my manager.", "Priya's manager is Daniel."),
    ],
)
def test_texts_that_share_their_words_but_say_different_things_are_not_one_statement(a, b):
    assert not near_duplicate(a, b)
    assert not pair_judge.adds_nothing(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Tom lives in Leeds.", "Tom lives in Leeds"),
        ("Tom lives in Leeds. He has a dog.", "Tom lives in Leeds."),
        ("我住在上海。", "我住在上海"),
    ],
)
def test_a_text_that_adds_nothing_word_for_word_is_one_statement(a, b):
    assert pair_judge.adds_nothing(a, b)
    assert near_duplicate(a, b)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("我爸妈住在杭州滨江区。", "user's 爸妈"),
        ("Tom's wife's birthday is 12 May.", "tom's wife"),
        ("My parents live in Leeds.", "user's parents"),
    ],
)
def test_a_speakers_family_is_not_the_speaker(text, subject):
    assert read(text).subject == subject


def test_features_see_history_plans_questions_and_other_people():
    f = pair_judge.features("I live in Leeds.", "I used to live in Leeds.", similarity=0.9)
    assert f["history_new"] == 1.0
    f = pair_judge.features("I live in Leeds.", "I might move to Edinburgh next year.", similarity=0.5)
    assert f["plan_new"] == 1.0
    f = pair_judge.features("Tom's birthday is 3 May.", "Tom's wife's birthday is 12 May.", similarity=0.8)
    assert f["relative"] == 1.0 and f["same_subject"] == 0.0
    f = pair_judge.features("我和老公住在杭州西湖区。", "我爸妈住在杭州滨江区。", similarity=0.8)
    assert f["relative"] == 1.0
    f = pair_judge.features("I'm vegan.", "I eat eggs and cheese most days.", similarity=0.3)
    assert f["excludes"] == 1.0


def test_a_change_is_likelier_than_added_detail_and_than_history():
    changed = pair_judge.judge(
        "We own a house in Leeds.", "We sold the house in Leeds and rent a flat in York now.", similarity=0.6
    )
    detail = pair_judge.judge("We own a house in Leeds.", "Our house in Leeds has a big garden.", similarity=0.6)
    history = pair_judge.judge("I live in Manchester.", "I used to live in Leeds.", similarity=0.6)
    assert changed.change > detail.change
    assert changed.change > history.change


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        (
            "Tom works at Kroger's office in Dayton.",
            "Tom works at the Target headquarters now.",
            ["kroger's", "target"],
        ),
        ("The wedding is on 14 June.", "The wedding got moved to 6 September.", ["14", "6", "september"]),
        ("小美特别喜欢吃香菜。", "小美最讨厌香菜了，一点都不吃。", ["讨厌"]),
    ],
)
def test_the_reason_shows_the_words_as_written_not_stems_or_number_lists(a, b, shown):
    reason = pair_judge.judge(a, b, similarity=0.7).reason
    for word in shown:
        assert word in reason.casefold()
    assert "offic " not in reason and "headquart " not in reason  # no stemmed tokens
