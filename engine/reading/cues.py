"""Words that tell how a later note stands to an earlier one, English and Chinese.

General knowledge of how people say that something changed, is history, is only a plan or a
question, or that two things exclude each other ("vegan" / "eggs"). The pair judge
(engine/judgments/pair_judge.py) reads them as evidence; no list decides a pair alone.
Each pattern is matched on the lower-cased text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


# The state described before is over, or replaced: "moved", "sold", "no longer", "these days".
CHANGE = _any(
    r"\b(?:moved|relocated|sold|quit|resigned|left|retired|divorced|separated|broke up|split up|dumped)\b",
    r"\b(?:no longer|not any ?more|anymore|any more|these days|nowadays|now|currently|since then)\b",
    r"\b(?:switched|changed|swapped|replaced|stopped|gave up|gave it up|dropped|cancell?ed|postponed)\b",
    r"\b(?:moved to|pushed (?:back|to)|rescheduled|got moved|was moved|instead)\b",
    r"\b(?:became|become|turned|just turned|started|began|took up|picked up|got into|is now|are now)\b",
    r"\b(?:ended|finished|graduated|lost|passed away|died|got rid of|rehomed|gave away)\b",
    r"\b(?:actually|correction|turns out|not true|wrong)\b",
    r"(?:搬|卖掉|卖了|辞职|离职|辞了|退休|离婚|分手|分开|不再|不.{0,2}了|已经不|现在|如今|目前|最近开始|开始|改成|改到|改为|换成|换了|换到|戒了|戒掉|取消|推迟|延期|提前|变成|成了|其实|不是.{0,4}而是)",
)
# Framed as the past: what was true, not a claim about now.
HISTORY = _any(
    r"\b(?:used to|formerly|previously|once|back in|back when|years ago|as a kid|as a child|growing up|in college|in school)\b",
    r"\buntil (?:19|20)\d\d\b|\bbefore (?:19|20)\d\d\b|\bin (?:19|20)\d\d\b",
    r"(?:以前|之前|曾经|过去|小时候|当年|那时候|那时)",
)
# A plan, a wish, a possibility or a condition: not yet a change.
PLAN = _any(
    r"\b(?:might|may|maybe|perhaps|possibly|if|unless|would|could|considering|thinking (?:about|of)|plans? to|planning|hope|hoping|want to|wants to|wanna|would like|going to|gonna|someday|one day|eventually|next year|next month|dream)\b",
    r"(?:打算|可能|也许|或许|如果|要是|想要|想去|想搬|计划|考虑|准备|希望|梦想|将来|以后|明年|下个月)",
)
QUESTION = _any(r"\?\s*$|\?\s", r"^(?:does|do|is|are|did|has|have|was|were|can|will)\b", r"(?:吗|呢)[？?。]?\s*$|？")

LIKE = _any(
    r"\b(?:loves?|loved|likes?|liked|enjoys?|enjoyed|adores?|favou?rite|fan of|into|prefers?|obsessed)\b",
    r"(?:喜欢|爱吃|爱喝|热爱|最爱|偏爱|迷上|爱上)",
)
DISLIKE = _any(
    r"\b(?:hates?|hated|dislikes?|disliked|can't stand|cannot stand|detests?|not a fan|not into|sick of|tired of|gross|disgusting)\b",
    r"(?:讨厌|不喜欢|受不了|不爱|烦|恶心|不吃|不喝)",
)

# Things that exclude each other when said of one person at one time (general knowledge).
_EXCLUDES: list[tuple[str, str]] = [
    (
        r"\bvegan\b|纯素|吃素|素食",
        r"\b(?:meat|beef|pork|chicken|steak|bacon|fish|salmon|tuna|eggs?|cheese|milk|dairy|butter|yogh?urt|honey|burgers?|ham|sausages?)\b|肉|鸡|鱼|蛋|奶|牛排|火锅",
    ),
    (
        r"\bvegetarian\b|素食|吃素",
        r"\b(?:meat|beef|pork|chicken|steak|bacon|fish|salmon|tuna|burgers?|ham|sausages?|lamb)\b|肉|鸡|鱼|牛排",
    ),
    (
        r"\b(?:doesn't drink|don't drink|does not drink|do not drink|teetotal|sober|never drinks?|quit drinking|stopped drinking)\b|不喝酒|戒酒|滴酒不沾",
        r"\b(?:wine|beer|whisk(?:e)?y|vodka|gin|cocktails?|pints?|drinks? (?:alcohol|a lot))\b|喝酒|啤酒|红酒|白酒",
    ),
    (
        r"\b(?:doesn't smoke|don't smoke|non-?smoker|never smoked|quit smoking)\b|不抽烟|戒烟",
        r"\b(?:smokes|cigarettes?|a pack)\b|抽烟|吸烟",
    ),
    (
        r"\bsingle\b|单身",
        r"\b(?:married|wife|husband|girlfriend|boyfriend|fianc[eé]e?|engaged|partner)\b|结婚|老婆|老公|女朋友|男朋友|对象",
    ),
    (
        r"\bmarried\b|结婚|已婚|老婆|老公|wife|husband",
        r"\b(?:divorced?|divorce|single|separated|ex-wife|ex-husband)\b|离婚|单身|前妻|前夫",
    ),
    (r"\b(?:owns?|own a|bought)\b|买了", r"\b(?:sold|rents?|renting|lost)\b|卖了|卖掉|租"),
    (r"\ballergic\b|过敏", r"\b(?:eats? (?:lots of|a lot of)?|loves eating)\b"),
    (
        r"\b(?:no kids|no children|childless)\b|没有孩子|没孩子",
        r"\b(?:son|daughter|kids|children|baby|pregnant)\b|儿子|女儿|孩子|宝宝|怀孕",
    ),
    (
        r"\b(?:no pets?|doesn't have (?:a |any )?pets?)\b|没养|不养",
        r"\b(?:dog|cat|puppy|kitten|pet|rabbit|parrot|hamster)\b|狗|猫|宠物",
    ),
    (
        r"\b(?:early bird|morning person|wakes? up early)\b|早起",
        r"\b(?:night owl|sleeps? in|stays? up late)\b|熬夜|晚睡",
    ),
    (
        r"\b(?:unemployed|jobless|between jobs|out of work)\b|失业|没工作",
        r"\b(?:works? (?:at|for|as)|job at|hired|employed)\b|上班|工作",
    ),
]
EXCLUDES = [(re.compile(a, re.IGNORECASE), re.compile(b, re.IGNORECASE)) for a, b in _EXCLUDES]


@dataclass(frozen=True)
class Cues:
    change: str  # the change word found, "" for none
    history: bool
    plan: bool
    question: bool
    likes: bool
    dislikes: bool


def cues(text: str) -> Cues:
    found = CHANGE.search(text)
    return Cues(
        change=found.group(0) if found else "",
        history=bool(HISTORY.search(text)),
        plan=bool(PLAN.search(text)),
        question=bool(QUESTION.search(text.strip())),
        likes=bool(LIKE.search(text)),
        dislikes=bool(DISLIKE.search(text)),
    )


def excluding(old: str, new: str) -> tuple[str, str] | None:
    """Two words, one from each text, that cannot both hold of one person ("vegan", "eggs")."""
    for first, second in EXCLUDES:
        for x, y in ((old, new), (new, old)):
            m, n = first.search(x), second.search(y)
            if m and n and not second.search(x):
                return (m.group(0), n.group(0)) if x is old else (n.group(0), m.group(0))
    return None
