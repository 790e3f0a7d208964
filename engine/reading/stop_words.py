"""Function words that name nothing, shared by the offline model (offline.py: keywords) and the
statement reader (statements.py: subjects), which each add the words their own job skips.

Written as one string each so the lists read as text; every entry is one word.
"""

from __future__ import annotations

ENGLISH: frozenset[str] = frozenset(
    """
    a an the and or but then of to in on at by for with from as is are was were be been being am do does did
    have has had he she it its they them their this that these those there here what which who how when where so
    too very just also than about into over again more most some any all each own said says think
    """.split()
)

CHINESE: frozenset[str] = frozenset(
    """
    的 了 是 在 和 与 也 就 都 又 把 被 对 从 向 给 让 这 那 这个 那个 吗 呢 吧 啊 很 还 要 会 已经
    """.split()
)

# Words that carry no content of their own in a keyword or a merged sentence (the offline model's
# keywords, engine/reading/sentences.py's merges): the function words of both languages, pronouns,
# modals, negation and a few verbs too common to say what a note is about.
NOT_CONTENT: frozenset[str] = (
    ENGLISH
    | CHINESE
    | frozenset(
        """
        if else i me my we our you your whom why not no yes can could should would will under other such only
        same up down out off s t don now use used using decided want wants need needs make made get got know 及
        或 而 我 你 他 她 它 我们 你们 他们 一个 有 没有 不 呀 能 可以 因为 所以 但是 如果 然后
        """.split()
    )
)
