"""Rules that tell when a newer note contradicts an older one, without a model.

They run on every write against the notes the write already looked up (the note it
resembles and its link candidates, engine/write/pipeline.py), in the offline stand-ins of
the merge and evolution judges (engine/llm/offline.py), and never fold two notes they call
contradictory. Measured on the labelled pairs of ``python -m bench curation``
(docs/benchmarks.md): an earlier version fired on any negation or any number that differed
and opened four false alarms for each real contradiction on ordinary notes.

Both notes are read as statements (engine/reading/statements.py), and only statements about
the same subject can contradict ("I" is the turn's speaker or the agent's user; "Ana's
brother" is not Ana). Then, first rule that holds wins:

* ``slot <name>``: a single-valued slot (where someone lives, works, their job, age,
  birthday, relationship status) holds two different values, or the newer note says the
  subject left the older value ("left Farfetch", "no longer works at Farfetch"). The tool
  slot counts only when the newer note announces a change ("switched from Vim to Emacs").
* ``negation``: one note negates what the other states: the negated note's content words,
  negation removed, all occur in the other ("Alex doesn't like tea" / "Alex likes tea";
  not "Sam struggles with cravings for soda" / "Sam still enjoys soda").
* ``number``: the same statement with different numbers or dates (PostgreSQL 15 / 16; the
  meeting on Tuesday / Thursday); two past events ("ran 5 km on Monday" / "ran 10 km on
  Saturday") may differ unless the newer note says something was moved.
* ``change``: the newer note announces a change ("now", "switched", "现在") of a state verb both
  notes use, with a different object ("studies medicine" / "now studies law").
"""

from __future__ import annotations

from engine.reading.statements import USER, Statement, read

# Verbs (stems) of lasting states: a change announced on one of these replaces the old object.
STATE_VERBS = frozenset(
    """
    live work use studi drive play eat drink own prefer speak teach wear read smoke ride cycl attend date run
    train practic cook bake write
    """.split()
) | frozenset(
    ["住", "工作", "上班", "用", "使用", "学", "学习", "吃", "喝", "养", "喜欢", "开", "骑", "读", "抽", "玩", "练"]
)


def contradiction(old: str, new: str, *, old_me: str = USER, new_me: str = USER) -> str | None:
    """Why ``new`` contradicts ``old`` (the reason a reviewer reads, its rule first), or None.

    ``old_me`` / ``new_me``: who "I" is in each text when it names no speaker (a note's
    only subject, else the agent's user).
    """
    a, b = read(old, me=old_me), read(new, me=new_me)
    if not a.subject or a.subject != b.subject:
        return None
    return slot_change(a, b) or negation_change(a, b) or number_change(a, b) or said_change(a, b)


def _differ(x: str, y: str) -> bool:
    return x != y and x not in y and y not in x


def slot_change(a: Statement, b: Statement) -> str | None:
    for slot, old_value in a.slots.items():
        new_value = b.slots.get(slot)
        if new_value is not None and _differ(old_value, new_value):
            if slot in ("tool",) and not (b.change or b.left):
                continue
            return f"slot {slot}: {a.subject} {old_value} → {new_value}"
        left = b.left.get(slot)
        if left is not None and not _differ(old_value, left):
            return f"slot {slot}: {a.subject} left {left}"
    return None


def negation_change(a: Statement, b: Statement) -> str | None:
    if a.negated == b.negated:
        return None
    negated, stated = (a, b) if a.negated else (b, a)
    # One shared word is too little in a long sentence: "Andrew does not have any pets" /
    # "Andrew believes that pets bring joy" share only "pet".
    enough = len(negated.words) >= 2 or len(stated.words) <= len(negated.words) + 1
    if negated.words and negated.words <= stated.words and enough:
        return f"negation: {b.subject} {'no longer' if b.negated else 'now'} {' '.join(sorted(negated.words))}"
    return None


def number_change(a: Statement, b: Statement) -> str | None:
    old, new = set(a.numbers), set(b.numbers)
    if not (old - new and new - old):
        return None  # a number only added is detail: "PostgreSQL 16" / "PostgreSQL 16 with 64 GB"
    if (a.event or b.event) and not b.change:
        return None
    shared = a.words & b.words
    union = a.words | b.words
    if union and (not shared or len(shared) / len(union) < 0.5):
        return None  # the same words around the numbers, or none at all ("The meeting is on Monday")
    return f"number: {', '.join(a.numbers)} → {', '.join(b.numbers)}"


def said_change(a: Statement, b: Statement) -> str | None:
    if not b.change or a.change:
        return None
    # The change must be said of the verb: "now studies law", "现在在腾讯上班"; not "joined a
    # gym … enjoying" against any other sentence with "enjoy".
    verbs = a.words & b.words & STATE_VERBS & b.changed
    # …and of the same thing: the verb and at least one more word in common ("studies medicine").
    if verbs and len(a.words & b.words) >= 2 and a.words - b.words and b.words - a.words:
        return f'change: "{b.change}" {"/".join(sorted(verbs))}: {" ".join(sorted(a.words - b.words))} → {" ".join(sorted(b.words - a.words))}'
    return None
