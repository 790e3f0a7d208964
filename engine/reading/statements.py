"""Reading a short note the way the contradiction rules need it: whom it is about, and what it says.

No model: patterns and word lists, English and Chinese. A note is read as a
``Statement``: its subject (a name; "I", "my", "我" resolved to the turn's speaker or
to the note's owner-user), its content words (stemmed English, jieba-cut Chinese,
without the subject, negations, change markers and numbers), whether it is negated,
the state change it announces ("moved", "now", "no longer", "现在", "搬到" …), its
numbers and dates, and a few single-valued *slots* (where someone lives, where they
work, their job, age, birthday, relationship status, the tool they use).

The rules built on it live in engine/reading/contradiction_rules.py.
"""

from __future__ import annotations

import calendar
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache

from engine.reading import stop_words

USER = "user"

# A conversation turn written with its speaker ("Caroline: I moved to Lisbon"): one or two
# capitalised words and a colon. The one rule for it: statements, same-statement checks and fact
# patterns all read the speaker with ``split_speaker``.
SPEAKER = re.compile(r"^\s*([A-Z][\w'-]*(?: [A-Z][\w'-]*)?):\s+")


def split_speaker(text: str) -> tuple[str | None, str]:
    """The turn's speaker as written (None when it names none) and the text after it."""
    match = SPEAKER.match(text)
    return (match.group(1), text[match.end() :]) if match else (None, text)


_HAN = re.compile(r"[\u4e00-\u9fff]")
# Hyphenated words stay whole: "dairy-free" is not "dairy".
_EN_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*(?::\d+)?|[^\W_]+", re.IGNORECASE)
_ZH_NUMERAL = "零〇一二两三四五六七八九十百千万"
_ZH_NUMBER = re.compile(rf"^([{_ZH_NUMERAL}]+|\d+)(?:[个只条位岁名次块元天年月号日点])?$")
_DIGITS = re.compile(r"^\d+(?:[.,:/]\d+)*(?:st|nd|rd|th|s)?$")

NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        """
        zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
        seventeen eighteen nineteen twenty
        """.split()
    )
}
DATE_WORDS = frozenset(name.lower() for name in (*calendar.month_name, *calendar.day_name) if name) | frozenset(
    ["周一", "周二", "周三", "周四", "周五", "周六", "周日", "周末", "星期一", "星期二", "星期三", "星期四", "星期五"]
)

FIRST_PERSON = frozenset(["i", "i'm", "i've", "i'd", "i'll", "me", "my", "mine", "we", "we're", "we've", "our", "us"])
PERSON_NOUNS = frozenset(
    """
    wife husband partner boyfriend girlfriend mother father mom dad mum parents parent son daughter kids
    children child brother sister brothers sisters friend friends boss colleague colleagues cousin uncle aunt
    grandma grandpa grandmother grandfather family team manager roommate neighbour neighbor baby
    """.split()
) | frozenset(
    """
    爸妈 爸 妈 室友 同学 妻子 老婆 丈夫 老公 父母 爸爸 妈妈 父亲 母亲 儿子 女儿 孩子 哥哥 姐姐 弟弟 妹妹 朋友
    同事 老板 家人
    """.split()
)

# Beyond the shared function words: words of time, frequency and telling, which never name a subject.
EN_STOP = stop_words.ENGLISH | frozenset(
    """
    it's him her his hers theirs really still always usually often every after before much many lot lots well
    quite while one's told tells mentioned mentions shared thinks feels feel recently lately today yesterday
    tomorrow week month year last next ago since currently
    """.split()
)
ZH_STOP = stop_words.CHINESE | frozenset(
    """
    着 过 非常 一直 平时 其实 现在 如今 目前 今年 去年 每天 每周 上个月 一起 一共 家里 自己 说 再 一点 特别 真的
    上午 下午 晚上 早上 从来 为 个 只 。 ， 、 ！ ？
    """.split()
)
NEGATIONS = frozenset(
    """
    not never no n't cannot can't won't don't doesn't didn't isn't aren't wasn't weren't hasn't haven't nor
    neither longer anymore
    """.split()
) | frozenset(["不", "没", "没有", "不再", "从不", "从没", "别", "未", "并不", "不是", "戒", "戒掉", "不会"])
# Verbs that end what follows them: "stopped drinking coffee" negates "drinks coffee".
STOPPERS = frozenset(["stopped", "stop", "stops", "quit", "quits", "gave", "give"])
# Words that say a state changed; the newer note carrying one announces the change.
CHANGE_WORDS = frozenset(
    """
    now no longer anymore switched switch moved relocated changed instead left became become sold quit stopped
    rescheduled postponed
    """.split()
) | frozenset(
    """
    现在 如今 不再 改为 改成 换成 改到 改用 搬到 搬去 搬 辞职 开始 戒 已经 换
    """.split()
)
# Past-tense event verbs: two events may differ in number or date without contradicting.
EVENT_WORDS = frozenset(
    """
    went visited ran met saw bought took made gave got came did attended watched played won lost read wrote
    baked cooked painted hiked travelled traveled flew drove walked adopted celebrated
    """.split()
) | frozenset(["去了", "看了", "买了", "参加", "参加了", "旅游", "旅行"])

JOBS = frozenset(
    """
    nurse teacher engineer developer programmer chef cook lawyer doctor photographer accountant designer student
    manager writer artist musician dentist pilot driver farmer scientist researcher consultant architect
    pharmacist waiter waitress barista cashier firefighter officer journalist
    """.split()
) | frozenset(
    """
    老师 医生 护士 工程师 程序员 律师 厨师 会计 设计师 学生 经理 司机 记者 作家 画家
    """.split()
)

_NAME = r"(?:[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2})"
_VALUE_ZH = r"([\u4e00-\u9fffA-Za-z]{2,8}?)"
# (slot, pattern whose group 1 is the value, whether the pattern says the subject *left* it)
SLOT_PATTERNS: list[tuple[str, re.Pattern[str], bool]] = [
    ("residence", re.compile(rf"\b(?:live|lives|lived|living|reside|resides|based|settled) in ({_NAME})"), False),
    ("residence", re.compile(rf"\b(?:moved|relocated|moving|move) (?:back )?to ({_NAME})"), False),
    ("residence", re.compile(rf"\b(?:moved|relocated) (?:away )?from ({_NAME})"), True),
    ("employer", re.compile(rf"\b(?:works?|working|worked|employed) (?:at|for) ({_NAME})"), False),
    ("employer", re.compile(rf"\b(?:joined|started at) ({_NAME})"), False),
    ("employer", re.compile(rf"\bleft ({_NAME})"), True),
    ("employer", re.compile(rf"\b(?:no longer|not|n't) works? (?:at|for) ({_NAME})"), True),
    ("employer", re.compile(rf"n't work (?:at|for) ({_NAME})"), True),
    ("job", re.compile(r"\b(?:works? as|is|am|'m|became|become) an? ((?:[a-z]+ )?[a-z]+)\b"), False),
    ("age", re.compile(r"\b(?:is|am|'m|turned|turns|turning) (\d{1,3})(?: years? old)?\b"), False),
    ("birthday", re.compile(r"birthday (?:is |was )?(?:on )?((?:\d{1,2} )?[A-Z][a-z]+(?: \d{1,2})?)"), False),
    ("relationship", re.compile(r"\b(?:is|am|'m|got|became) (single|married|divorced|engaged)\b"), False),
    ("tool", re.compile(rf"\b(?:switched|moved|changed|migrated) from ({_NAME}) to"), True),
    ("tool", re.compile(rf"\b(?:switched|moved|changed|migrated) (?:from {_NAME} )?to ({_NAME})"), False),
    ("tool", re.compile(rf"\b(?:uses|use|using|runs on|run on) ({_NAME})"), False),
    ("residence", re.compile(rf"(?:住在|生活在|定居在?|住){_VALUE_ZH}(?:[，。,.！]|$|市|区)"), False),
    ("residence", re.compile(rf"(?:搬到了?|搬去了?|搬回了?){_VALUE_ZH}(?:[，。,.！了]|$)"), False),
    ("employer", re.compile(rf"在{_VALUE_ZH}(?:公司)?(?:工作|上班|做|当|任职)"), False),
    ("employer", re.compile(rf"(?:加入了?|入职了?){_VALUE_ZH}(?:[，。,.！]|$|公司)"), False),
    ("employer", re.compile(rf"(?:从|离开了?){_VALUE_ZH}(?:辞职|离职)"), True),
    ("employer", re.compile(rf"不在{_VALUE_ZH}(?:公司)?(?:工作|上班)"), True),
    ("job", re.compile(r"(?:当|做|是一名|是一位|是一个)([\u4e00-\u9fff]{2,3}?)(?:[，。,.！了]|$)"), False),
    ("age", re.compile(rf"(\d{{1,3}}|[{_ZH_NUMERAL}]{{1,4}})岁"), False),
    (
        "birthday",
        re.compile(r"生日是(\d{1,2}月\d{1,2}[日号]|[一二三四五六七八九十]{1,3}月[一二三四五六七八九十]{1,3}[日号])"),
        False,
    ),
    ("tool", re.compile(r"从([A-Za-z\u4e00-\u9fff]{2,12}?)(?:换成|改成|改用|迁移到)"), True),
    ("tool", re.compile(r"(?:换成了?|改成了?|改用了?|迁移到了?)([A-Za-z\u4e00-\u9fff]{2,12}?)(?:[，。,.！]|$)"), False),
    ("tool", re.compile(r"(?:使用|用的是)([A-Za-z][\w.]{1,20})"), False),
]


@dataclass(frozen=True)
class Statement:
    text: str
    subject: str
    words: frozenset[str]  # content words: no subject, negation, change word, number or date
    negated: bool
    change: str  # the first change word found, "" for none
    numbers: tuple[str, ...]
    slots: dict[str, str] = field(default_factory=dict)
    left: dict[str, str] = field(default_factory=dict)  # slot → a value the subject left
    event: bool = False
    zh: bool = False
    changed: frozenset[str] = frozenset()  # words right after a change word ("now *studies*")


_local = threading.local()


# Stems that say the same thing here: "enjoys hiking" is "likes hiking" for these rules.
SAME_STEM = {"enjoy": "like", "love": "like", "adore": "like"}


def stem(word: str) -> str:
    if not word.isascii() or not word.isalpha():
        return word
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    stem = stemmer.stemWord(word)
    return SAME_STEM.get(stem, stem)


@lru_cache(maxsize=1)
def _jieba():
    import rjieba

    return rjieba


def split_words(text: str) -> list[str]:
    """Words in reading order: English split on letters (keeping n't), Han runs cut by jieba."""
    out: list[str] = []
    for piece in re.findall(r"[\u4e00-\u9fff]+|[^\s\u4e00-\u9fff]+", text):
        if _HAN.match(piece):
            # 养过 / 戒了 are 养 / 戒 as far as what is said goes.
            out.extend(w[0] if len(w) == 2 and w[1] in "过了着" else w for w in _jieba().cut(piece))
            continue
        for token in _EN_TOKEN.findall(piece):
            low = token.lower()
            if low.endswith("n't") and low not in NEGATIONS:
                out.extend([low[:-3], "n't"])
            else:
                out.append(low)
    return out


def _number(token: str) -> str | None:
    if token in NUMBER_WORDS:
        return NUMBER_WORDS[token]
    if _DIGITS.match(token):
        return re.sub(r"(?:st|nd|rd|th|s)$", "", token)
    match = _ZH_NUMBER.match(token)
    return match.group(1) if match else None


APOSTROPHE_S = "'s"


def _subject(tokens: list[str], me: str, zh: bool) -> tuple[str, int]:
    """(subject, how many leading tokens name it). ``me`` stands for I / my / 我."""
    i = 0
    skip = {"so", "and", "but", "also", "well", "oh", "yes", "then", "today", "yesterday", "recently", "now", "，"}
    while i < len(tokens) and tokens[i] in skip:
        i += 1
    if i >= len(tokens):
        return "", 0
    first = tokens[i]
    if first in FIRST_PERSON or first in ("我", "我们"):
        # "my wife", "我的妻子", "我父母" are someone else.
        j = i + 1 + (i + 1 < len(tokens) and tokens[i + 1] == "的")
        if j < len(tokens) and tokens[j] in PERSON_NOUNS:
            return f"{me}'s {tokens[j]}", j + 1
        return me, i + 1
    if first in ("user", "用户") or (first == "the" and i + 1 < len(tokens) and tokens[i + 1] == "user"):
        return USER, i + (2 if first == "the" else 1)
    if first == "the":
        i += 1
        if i >= len(tokens):
            return "", 0
        first = tokens[i]
    # A name, and whose: "Ana's brother", "张伟的妹妹" are other people; "Ana's birthday" is Ana's.
    j = i + 1
    if j < len(tokens) and tokens[j] in ("'s", "的", "s"):
        j += 1
    elif first.endswith("'s"):
        first = first[:-2]
        if j < len(tokens) and tokens[j].removesuffix(APOSTROPHE_S) in PERSON_NOUNS:
            # "Tom's wife's birthday" is about Tom's wife.
            return f"{first}'s {tokens[j].removesuffix(APOSTROPHE_S)}", j + 1
    if j < len(tokens) and tokens[j] in PERSON_NOUNS and j > i + 1:
        return f"{first}'s {tokens[j]}", j + 1
    return first, i + 1


def read(text: str, *, me: str = USER) -> Statement:
    """The statement ``text`` makes; ``me`` is who "I" is when the text does not say (no speaker)."""
    speaker, body = split_speaker(text.strip())
    if speaker:
        me = speaker.casefold()
    zh = bool(_HAN.search(body))
    tokens = split_words(body)
    subject, used = _subject(tokens, me.casefold(), zh)
    rest = tokens[used:]
    negated = any(t in NEGATIONS for t in rest) or any(
        t in STOPPERS and (k + 1 < len(rest) and (rest[k + 1].endswith("ing") or rest[k + 1] == "up"))
        for k, t in enumerate(rest)
    )
    change = next((t for t in rest if t in CHANGE_WORDS), "")
    if not change and re.search(r"\bno longer\b|\bused to\b", body, re.IGNORECASE):
        change = "no longer"
    numbers: list[str] = []
    words: set[str] = set()
    for token in rest:
        value = _number(token)
        if token in DATE_WORDS:
            numbers.append(token)
        elif value is not None:
            numbers.append(value)
        elif (
            token in NEGATIONS
            or token in CHANGE_WORDS
            or token in STOPPERS
            or token in EN_STOP
            or token in ZH_STOP
            or not any(ch.isalnum() for ch in token)
            or token in FIRST_PERSON
            or token in ("我", "我们")
        ):
            continue
        else:
            words.add(stem(token))
    slots: dict[str, str] = {}
    left: dict[str, str] = {}
    for slot, pattern, leaving in SLOT_PATTERNS:
        for match in pattern.finditer(body):
            value = match.group(1).strip().casefold()
            if slot == "job":
                value = next((w for w in value.split() if w in JOBS), "")
            if slot == "employer" and value.startswith("在"):
                value = value[1:]  # 现在在腾讯上班: the first 在 belongs to 现在
            target = left if leaving else slots
            if value and slot not in target and value != subject:
                target[slot] = value
    event = any(t in EVENT_WORDS for t in rest)
    changed = frozenset(
        stem(rest[k + d]) for k, t in enumerate(rest) if t in CHANGE_WORDS for d in (1, 2) if k + d < len(rest)
    )
    return Statement(body, subject, frozenset(words), negated, change, tuple(numbers), slots, left, event, zh, changed)
