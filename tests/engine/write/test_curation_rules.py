"""The offline curation rules on their own (no database): contradictions, the same statement, text quality.

Each case is one a reviewer meets; the earlier rules got every one of these wrong (a negation
anywhere, a number anywhere, "I" never resolved, no Chinese).
"""

from __future__ import annotations

import pytest

from engine.maintenance.text_quality import FRAGMENT, GIBBERISH, VAGUE, text_reasons
from engine.reading.contradiction_rules import contradiction
from engine.reading.merged_text import merged_text
from engine.reading.same_statement import near_duplicate
from engine.reading.statements import read


@pytest.mark.parametrize(
    "old, new, rule",
    [
        ("I live in Porto.", "I moved to Lisbon.", "slot residence"),
        ("Caroline: I live in Porto and I love it.", "Caroline: We finally moved to Lisbon!", "slot residence"),
        ("Ana works at Farfetch.", "Ana left Farfetch and joined Canva.", "slot employer"),
        ("I work at Bosch.", "I don't work at Bosch anymore.", "slot employer"),
        ("Mia is 7 years old.", "Mia just turned 9.", "slot age"),
        ("Hiro uses Vim for writing code.", "Hiro switched from Vim to Emacs.", "slot tool"),
        ("I drink coffee every morning.", "I stopped drinking coffee.", "negation"),
        ("The team offsite is on May 3.", "The team offsite was moved to June 5.", "number"),
        ("我和家人一起住在杭州。", "我上个月搬到上海了。", "slot residence"),
        ("张伟在百度公司做工程师。", "张伟现在在腾讯上班。", "slot employer"),
        ("小明今年已经七岁了。", "小明今年已经九岁了。", "slot age"),
        ("王芳平时特别喜欢吃辣。", "王芳平时一点也不喜欢吃辣。", "negation"),
        ("这套房子的房租每月三千元。", "这套房子的房租每月四千元。", "number"),
    ],
)
def test_a_contradiction_is_seen_with_its_rule(old, new, rule):
    reason = contradiction(old, new)
    assert reason is not None and reason.startswith(rule), reason


@pytest.mark.parametrize(
    "old, new",
    [
        # A negation elsewhere in the sentence is not a contradiction.
        ("Sam struggles with cravings for sugary drinks.", "Sam still enjoys soda and candy."),
        ("Melanie encourages her son not to give up.", "Melanie supports her son's football practice."),
        ("Ana works at Farfetch.", "Ana doesn't work on weekends."),
        ("Joanna can't have dairy.", "Joanna is keen to try Nate's dairy-free dessert recipe."),
        # Someone else.
        ("Ana works at Farfetch.", "Ana's brother doesn't work at Farfetch."),
        ("I live in Porto.", "My parents moved to Lisbon."),
        ("张伟一家人一直住在北京。", "张伟的妹妹搬到了杭州。"),
        # Numbers of different things, or of two past events.
        ("Mia is 7 years old.", "Mia has 2 goldfish."),
        ("Jon ran 5 km on Monday.", "Jon ran 10 km on Saturday."),
        ("The staging database runs PostgreSQL 15.", "The production database runs PostgreSQL 16."),
        # A narrower negation: coffee in the evening only.
        ("小王平时很喜欢喝咖啡。", "小王晚上一般不喝咖啡。"),
    ],
)
def test_compatible_notes_are_not_a_contradiction(old, new):
    assert contradiction(old, new) is None


def test_i_is_the_speaker_of_a_turn_or_the_notes_subject():
    assert read("Caroline: I moved to Lisbon.").subject == "caroline"
    assert read("I moved to Lisbon.", me="Bob").subject == "bob"
    assert read("我搬到上海了。").subject == "user"
    assert contradiction("I live in Porto.", "I moved to Lisbon.", old_me="ana", new_me="bob") is None


@pytest.mark.parametrize(
    "a, b, same",
    [
        # A synonym or another word order may say the same, or not ("tea to coffee" / "coffee to
        # tea"): offline that is a person's call, never a merge.
        ("Andrew enjoys hiking in the great outdoors.", "Andrew likes hiking in the great outdoors.", False),
        ("Alice prefers green tea in the morning.", "In the morning Alice prefers green tea.", False),
        ("Alice's dog is named Rex.", "Alice's dog is named Rex. Rex is a beagle.", True),
        ("Alice's dog is named Rex.", "alice's dog is named Rex", True),
        ("Nate adopted a turtle.", "Nate adopted a second turtle named Tank.", False),
        ("Ana works at Farfetch.", "Ana no longer works at Farfetch.", False),
        ("小王每天早上去公园跑步。", "小王每天早上都去公园跑步。", False),
        ("小王每天早上去公园跑步。", "小王每天早上去公园跑步", True),
        ("小王周一去了图书馆。", "小王周三去了游泳馆。", False),
    ],
)
def test_only_a_text_that_adds_nothing_merges_offline(a, b, same):
    assert near_duplicate(a, b) is same


def test_a_merged_text_never_says_both_sides_the_newer_word_wins():
    older = "Ana no longer works at Farfetch. She lives in Porto."
    merged = merged_text(older, "Ana works at Farfetch as a designer. Ana has a cat named Miso.")
    assert merged == "Ana works at Farfetch as a designer. She lives in Porto. Ana has a cat named Miso."


@pytest.mark.parametrize(
    "text, reasons",
    [
        ("Something about the thing we discussed earlier.", [VAGUE]),
        ("Thanks, that means a lot!", [VAGUE]),
        ("就是之前说的那个事情。", [VAGUE]),
        ("asdkjh qwe zxcmnb", [GIBBERISH]),
        ("test test test test test", [GIBBERISH]),
        ("哈哈哈哈哈哈哈哈哈哈", [GIBBERISH]),
        ("And then we went to the", [VAGUE, FRAGMENT]),
        ("因为他昨天跟我说的那个", [FRAGMENT]),
        ("Alex is vegan.", []),
        ("Qdrant runs embedded in the web process.", []),
        ("Something went wrong with the nightly backup: disk full on db-2.", []),
        ("用户平时喜欢喝绿茶。", []),
        ("Bart在圣诞节晚会上跳舞，感觉非常开心。", []),
    ],
)
def test_the_quality_scan_reads_the_text(text, reasons):
    assert text_reasons(text) == reasons
