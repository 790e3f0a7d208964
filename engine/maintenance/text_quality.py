"""What the quality scan reads in a note's text (no model): vague, gibberish, or a fragment.

* ``vague``: it points at something without saying it — "Something about the thing we
  discussed earlier.", "Thanks, that means a lot!", "就是之前说的那个事情。" Every word is a
  stop word, a pronoun, or a word of reference, time or chit-chat (the lists below); no name,
  number or other content word is left.
* ``gibberish``: no letters at all ("!!!!!!"), one token repeated ("test test test",
  "哈哈哈哈"), or mostly strings that are not words of English (word frequencies from the
  ``wordfreq`` package; a capitalised word counts as a name, so "Farfetch" is fine).
* ``fragment``: cut off mid-sentence: no closing punctuation and the last word cannot end a
  sentence ("And then we went to the", "因为他昨天跟我说的那个").

Measured on the labelled notes of ``python -m bench curation`` (docs/benchmarks.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.reading.statements import EN_STOP, FIRST_PERSON, ZH_STOP

VAGUE, GIBBERISH, FRAGMENT = "vague", "gibberish", "fragment"

# Words that refer, react or hedge without saying anything by themselves.
VAGUE_WORDS = frozenset(
    """
    thing things stuff something anything everything nothing whatever it that this them those one ones earlier
    before later soon again previous usual same other else above below there here now yet anyway discussed
    discuss talked talk said say told tell mentioned mention remember remind refer check follow up deal came
    come went go going do did done doing happened happen happens get got see sure think thought guess know mean
    means meant like okay ok fine good great cool nice awesome wow haha lol yeah yes no oh hey thanks thank
    sounds sound totally agree agreed interesting important issue topic conversation matter point time sometime
    should would could will can may might let's lets us more less not really expected as usual is was what
    whatever okay-ish hmm um uh well glad happy hear good-bye bye
    """.split()
)
ZH_VAGUE = frozenset(
    """
    那个 这个 事情 事 东西 之前 上次 后面 再说 一样 没什么 变化 记得 提到 内容 参考 上面 讨论 聊 聊过 好的 好
    没问题 问题 哈哈 确实 这样 那样 重要 记住 关于 嗯 嗯嗯 明白 意思 就是 没办法 办法 弄 弄好 还 没 还没 他 她
    他们 我们 你 我 说 件 那件 什么 怎么 吧 呢 啊 哦 对 行 可以 知道 了解 看看 以后 之后 再 又 也
    """.split()
)
_CAN_END = frozenset(["it", "that", "this", "up", "out", "too", "again", "now", "well", "there", "here"])
_OPEN_END_EN = frozenset(
    """
    the a an to of with for that about in on at and or but because if when which is was are were would will my
    his her their our your i we he she they so than as from into by
    """.split()
) - _CAN_END | {"about", "because", "the", "a", "an", "of", "with", "for", "and", "or", "but", "if", "when", "which"}
_OPEN_END_ZH = tuple(
    """
    那个 这个 的 和 跟 因为 如果 但是 然后 的话 就 把 在 给 我 你 他 她 他们 她们 我们 怕 想 还有 所以 可是 而且
""".split()
)
# Text mangled on its way: UTF-8 read as Latin-1 ("Ã©", "â€™"), GBK garbage ("锟斤拷", "烫烫烫"),
# HTML entities and percent-encoding left in.
_MOJIBAKE = re.compile(r"(?:[ÃÂâåæçèéäïð][\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]){2,}|锟斤拷|烫烫烫|屯屯屯")
_ENTITIES = re.compile(r"(?:&(?:[a-z]{2,6}|#\d{2,5});.*){2,}")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2}){3,}")
# References that point at something the note never says: "that thing", "what happened", "那件事".
_VAGUE_PHRASE = re.compile(
    r"\b(?:th(?:at|is|e) thing|those things|what happened|the one (?:i|you|we) (?:told|said|mentioned)|that (?:trip|event|place|note|issue|problem|stuff|one)|"
    r"you know what|as (?:i|we) (?:said|discussed)|(?:talked|spoke) (?:about|to) (?:someone|something)|someone|something|somewhere|a place|a project)\b"
    r"|(?:那件事|这件事|那个事|那种|那次|上次那|还是那样|那样弄|那个方案|那个问题|他们说的|她说的那|他说的那|那天)",
    re.IGNORECASE,
)
_POINTER_START = re.compile(
    r"^\s*(?:it|this|that|he|she|they|them|got it)\b|^\s*(?:他|她|它|他们|她们|这|那)", re.IGNORECASE
)
_CLOSED = re.compile(r"[.!?。！？…)\]\"'”’]\s*$")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_PLACEHOLDER = re.compile(r"\blorem ipsum\b|\basdf\b|\bfoo bar\b", re.IGNORECASE)
KNOWN_ZIPF = 2.0  # below this a lower-case string is not an English word (wordfreq's Zipf scale)


@lru_cache(maxsize=20_000)
def _known(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= KNOWN_ZIPF


def _han_words(text: str) -> list[str]:
    import rjieba

    return [w for run in re.findall(r"[\u4e00-\u9fff]+", text) for w in rjieba.cut(run)]


def gibberish(text: str) -> bool:
    if _MOJIBAKE.search(text) or _ENTITIES.search(text) or _PERCENT.search(text):
        return True
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return True  # "!!!!!!", "1234 5678"
    if _PLACEHOLDER.search(text):
        return True
    if _HAN.search(text):
        han = [c for c in text if _HAN.match(c)]
        words = _han_words(text)
        return len(set(han)) <= max(2, len(han) // 4) or (len(words) >= 4 and len(set(words)) <= len(words) // 3)
    words = [w.lower() for w in _LATIN_WORD.findall(text)]
    if len(words) >= 4 and len(set(words)) <= len(words) // 3:
        return True  # "test test test test"
    if any(re.search(r"(.)\1{3,}", w) for w in words) and len(set(words)) <= 3:
        return True  # "jjjjjjjj", "zzzzzz zzzzzz"
    plain = [w for w in _LATIN_WORD.findall(text) if not w[0].isupper() or w.isupper()]
    strange = [w for w in plain if not _known(w.lower())]
    return bool(plain) and len(strange) * 2 >= len(plain)


def vague(text: str) -> bool:
    if re.search(r"\d", text):
        return False
    if _VAGUE_PHRASE.search(text) and not _names(text):
        return True
    if _POINTER_START.search(text) and not _names(text) and len(text) < 120:
        return True
    if _HAN.search(text):
        words = [w for w in _han_words(text) if _HAN.search(w)]
        return bool(words) and all(w in ZH_VAGUE or w in ZH_STOP for w in words)
    words = _LATIN_WORD.findall(text)
    for word in words:
        low = word.lower().removesuffix("'s")
        if low in VAGUE_WORDS or low in EN_STOP or low in FIRST_PERSON or low in ("he", "she", "they", "we", "you"):
            continue
        if low.endswith(("'re", "'ll", "'m")):
            continue
        return False  # a name or a content word: it says something
    return bool(words)


def _names(text: str) -> list[str]:
    """Capitalised words that are not pronouns or function words: the names a note gives."""
    return [w for w in re.findall(r"\b[A-Z][a-z][\w'-]*", text) if w.lower() not in _NOT_NAMES]


_NOT_NAMES = (
    EN_STOP
    | FIRST_PERSON
    | frozenset(
        """
        it this that he she they them we you sure yes yeah got just have sorry missed shure doctor
        """.split()
    )
)


def fragment(text: str) -> bool:
    body = text.strip()
    if not body or _CLOSED.search(body):
        return False
    if _HAN.search(body[-1]):
        return body.endswith(_OPEN_END_ZH)
    words = _LATIN_WORD.findall(body)
    return bool(words) and (words[-1].lower() in _OPEN_END_EN or body.endswith(","))


def text_reasons(text: str) -> list[str]:
    """The text's own problems, in a fixed order (gibberish first: it is also "vague")."""
    if gibberish(text):
        return [GIBBERISH]
    reasons = []
    if vague(text):
        reasons.append(VAGUE)
    if fragment(text):
        reasons.append(FRAGMENT)
    return reasons
