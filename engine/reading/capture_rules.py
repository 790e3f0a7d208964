"""What a user's turn states that is worth remembering, by rule (the offline CRUD gate's reading).

A turn is read sentence by sentence. A question ("Who keeps bees in the family?", 家里谁养蜜蜂？),
a request to the assistant ("Tell me everything about my sister Brigitte…", 告诉我…, 帮我…) and
chit-chat ("Thanks, that's really helpful!") state nothing to keep; a statement about the user or
the world does ("Also, my cousin Radka collects antique barometers."). "Remember that X" and
"don't forget X" (记住X, 别忘了X) are requests whose X is the statement. Measured on the labelled
chat turns in integrations/openclaw/test/fixtures/capture-turns.jsonl (tests/engine/llm/test_capture_set.py;
docs/benchmarks.md, "Offline capture").
"""

from __future__ import annotations

import re

from engine.reading import stop_words

MIN_CHARS = 10  # amem's quality gate: shorter text is never a memory
MIN_HAN_CHARS = 3  # 我吃素 (three characters) states something; 好的 does not

# Sentences end at . ! ? and their full-width forms; a Chinese sentence needs no space after.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")
_HAN = re.compile(r"[\u4e00-\u9fff]")

# "Remember that …", "Please note: …", 记住，…, 请记一下，… — the rest is what to keep.
_KEEP_THIS = re.compile(
    r"^(?:please\s+)?(?:(?:remember|note|keep\s+in\s+mind|don'?t\s+forget|do\s+not\s+forget)(?:\s+that)?|"
    r"for\s+the\s+record|fyi|by\s+the\s+way|btw|also|oh,?\s+and|and)\s*[,:]?\s+(?!what|who|where|when|how|which|why|if|whether)",
    re.IGNORECASE,
)
_HAN_KEEP_THIS = re.compile(r"^(?:请)?(?:记住|记一下|记得|别忘了|不要忘了|另外|对了|顺便说一下|顺便)[，,：:]?\s*")
# 推荐菜谱的时候别忘了我吃素: what follows 别忘了 is the statement.
_HAN_KEEP_INSIDE = re.compile(r"(?:别忘了|不要忘了|记住)[，,：:]?\s*(.+)$")
_KEEP_INSIDE = re.compile(r"\bdon'?t\s+forget\s+that\s+(.+?)(?:\s+when\s+you\b.*)?$", re.IGNORECASE)

_QUESTION_START = re.compile(
    r"^(?:so\s+|and\s+|but\s+|hey,?\s+)?(?:what|what's|whats|why|how|when|where|who|whom|whose|which|"
    r"can|could|would|will|shall|should|is|are|am|was|were|do|does|did|have|has|had|any\s+idea|"
    r"remember\s+(?:what|who|where|when|how|which)|isn'?t|aren'?t|don'?t\s+you|didn'?t)\b",
    re.IGNORECASE,
)
_HAN_QUESTION = re.compile(
    r"(?:吗|呢|么|吧)[。？?！!]?$|什么|怎么|为什么|为啥|哪|谁|几点|几[个天号]|多少|多[久远大高长重贵宽深快]|是否|有没有|是不是|能不能|可不可以"
)
# A request to the assistant: an imperative that opens the sentence, or "I want you to …".
_REQUEST_START = re.compile(
    r"^(?:please\s+|pls\s+|now\s+|ok(?:ay)?,?\s+|so,?\s+)?(?:tell|write|translate|remind|give|draft|list|help|explain|fix|"
    r"make|suggest|let'?s|let\s+us|show|find|convert|rewrite|send|describe|compare|generate|recommend|summari[sz]e|"
    r"plan|check|create|book|order|read|search|look\s+up|look|calculate|compute|draw|sing|play|open|set|schedule|"
    r"add|delete|remove|update|edit|correct|proofread|format|turn|go|continue|repeat|try|do|answer|teach|quiz|"
    r"pretend|imagine|act|be)\b",
    re.IGNORECASE,
)
_REQUEST_ANYWHERE = re.compile(
    r"\b(?:i\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to|can\s+you|could\s+you|would\s+you)\b"
    # "Walk me through …", "Get us a table": a verb, then me/us, opens an imperative.
    r"|^(?:please\s+)?[a-z]+\s+(?:me|us)\b(?!\s+(?:and|or)\b)|^please\b",
    re.IGNORECASE,
)
# What a statement worth keeping is anchored to: the user (I, my, we, 我), a number, a name.
_ANCHOR = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|ours|us|he|she|they|his|her|their)\b|\d", re.IGNORECASE
)
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]")
_HAN_ANCHOR = re.compile(r"我|\d|[一二三四五六七八九十两百千万]")
SHORT_WORDS = 5  # "Okay thanks, bye for now." — a short sentence with no anchor is chit-chat
SHORT_HAN = 6  # 多谢，辛苦了
_HAN_REQUEST = re.compile(
    r"^(?:请|麻烦|劳驾|(?:你)?(?:告诉我|写|把|提醒|给我|帮我|帮忙|列出|列一|解释|简单解释|介绍|推荐|再跟我说|再说|比较|"
    r"翻译|总结|改写|规划|查|讲|说出|说说|算|计算|画|唱|打开|设置|安排|添加|删除|更新|修改|检查|生成|起个|想个|做个|来个|"
    r"订|找|教|我想让你|我要你|我需要你|你能|你可以|能不能|可以帮))"
    # 一步步教我…, 快帮我…: a verb with 我 as its object, near the start, asks for something.
    r"|^.{0,4}(?:教|帮|给|告诉|替|陪)我"
)
_EPHEMERAL = re.compile(
    r"\b(?:todo tomorrow|pending confirmation|right now|in a minute|later today|just checking in)\b|待跑|等确认|明天完成",
    re.IGNORECASE,
)
CHITCHAT: frozenset[str] = frozenset(
    """
    hi hello hey there thanks thank ok okay bye good morning night afternoon evening great perfect cool nice wow
    haha lol sure fine alright yes yeah yep no nope sorry back wait worries mind forget it sounds works helpful
    amazing hilarious one much really so please talk tomorrow later see think let me hmm oh didn know first
    quick question never go ahead you that would be nice
    """.split()
) | frozenset(
    """
    好 嗯 哦 啊 哈 哈哈 明白 收到 好的 知道了 了解 谢谢 谢 再见 你好 早上好 晚安 拜拜 没问题 不客气 算了 不用了
    太 厉害 了 好笑 我想想 想想 原来 是 这样 回来 久等 明天 聊 回头 就 这么 办 吧 哇 帮助 有
    """.split()
)
_WORD = re.compile(r"[a-z]+|[\u4e00-\u9fff]", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s and s.strip()]


def _is_question(sentence: str) -> bool:
    s = sentence.strip()
    if s.endswith(("?", "？")):
        return True
    if _HAN.search(s):
        return bool(_HAN_QUESTION.search(s))
    return bool(_QUESTION_START.match(s))


def _is_request(sentence: str) -> bool:
    s = sentence.strip()
    if _HAN.search(s[:3]):
        return bool(_HAN_REQUEST.match(s))
    return bool(_REQUEST_START.match(s) or _REQUEST_ANYWHERE.search(s))


def _is_chitchat(sentence: str) -> bool:
    words = [w.lower() for w in _WORD.findall(sentence)]
    han = [w for w in words if _HAN.match(w)]
    if han and len(han) <= SHORT_HAN and not _HAN_ANCHOR.search(sentence):
        return True
    if not han and len(words) <= SHORT_WORDS and not (_ANCHOR.search(sentence) or _NAME.search(sentence)):
        return True
    if han and len(han) >= len(words) / 2:
        # Chinese: chit-chat when the characters left after its stock phrases are too few to say anything.
        rest = sentence
        for phrase in sorted((w for w in CHITCHAT if _HAN.search(w)), key=len, reverse=True):
            rest = rest.replace(phrase, "")
        return len(_HAN.findall(rest)) < MIN_HAN_CHARS
    return not words or all(w in CHITCHAT or w in stop_words.ENGLISH or len(w) == 1 for w in words)


def _long_enough(sentence: str) -> bool:
    if _HAN.search(sentence):
        return len(_HAN.findall(sentence)) >= MIN_HAN_CHARS
    return len(sentence) >= MIN_CHARS


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text[:1].islower() and not text.lower().startswith(("i ", "i'")) else text


def statement_of(sentence: str) -> str | None:
    """The statement worth keeping in one sentence, or None (a question, a request, chit-chat)."""
    s = sentence.strip()
    if _HAN.search(s[:4]):
        inner = _HAN_KEEP_INSIDE.search(s)
        s = inner[1] if inner and not _is_question(inner[1]) else _HAN_KEEP_THIS.sub("", s)
    else:
        inner = _KEEP_INSIDE.search(s)
        if inner:
            s = inner[1].rstrip(" .") + "."
        else:
            cut = _KEEP_THIS.sub("", s)
            s = _capitalise(cut) if cut != s else s
    if not _long_enough(s) or _is_question(s) or _is_request(s) or _is_chitchat(s) or _EPHEMERAL.search(s):
        return None
    return s


def statements(text: str) -> list[str]:
    """The statements of a user's turn worth keeping, in order."""
    found = (statement_of(s) for s in sentences(text))
    return [s for s in found if s]
