"""Word diffs for people: what only one of two texts says, marked.

Texts are cut into words first: Latin and other scripts at word boundaries, Chinese by
rjieba (jieba's segmentation; Chinese has no spaces, so a diff over spaces marks a whole
sentence), punctuation on its own. Each word carries the spaces after it, so the marked
text reads exactly as written, line breaks included.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A Han run, a word (letters and digits, with inner apostrophes and hyphens: "Sarah's", "oat-milk"),
# or one other character; each with the spaces that follow it.
_PIECE = re.compile(rf"(?:([{_HAN}]+)|([^\W_]+(?:['’\-][^\W_]+)*)|(\S))(\s*)", re.UNICODE)


@lru_cache(maxsize=1)
def _jieba():
    import rjieba

    return rjieba


@dataclass(frozen=True)
class Word:
    text: str
    space: str  # what follows it, as written

    @property
    def key(self) -> str:
        return self.text.casefold()


def words(text: str) -> list[Word]:
    """``text`` as words (see the module); joined back with their spaces they are ``text`` again,
    except the spaces before the first word."""
    out: list[Word] = []
    for m in _PIECE.finditer(text):
        han, word, other, space = m.groups()
        if han:
            cut = _jieba().cut(han)
            out.extend(Word(w, "") for w in cut[:-1])
            out.append(Word(cut[-1], space))
        else:
            out.append(Word(word or other, space))
    return out


def _opcodes(a: list[Word], b: list[Word]) -> Sequence[tuple[str, int, int, int, int]]:
    matcher = difflib.SequenceMatcher(a=[w.key for w in a], b=[w.key for w in b], autojunk=False)
    return matcher.get_opcodes()


def _run(ws: list[Word], tag: str | None, title: str = "") -> str:
    """Words as HTML: marked (in ``tag``) without the spaces after the last word, which stay outside."""
    if not ws:
        return ""
    inner = escape("".join(w.text + w.space for w in ws[:-1]) + ws[-1].text)
    after = escape(ws[-1].space)
    if tag is None:
        return inner + after
    attrs = f' class="{title}"' if title else ""
    return f"<{tag}{attrs}>{inner}</{tag}>{after}"


def side_diff(a: str, b: str) -> tuple[SafeString, SafeString]:
    """Both texts with the words only one side has marked (``mark.only-a`` / ``mark.only-b``; escaped)."""
    wa, wb = words(a), words(b)
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in _opcodes(wa, wb):
        if op == "equal":
            left.append(_run(wa[i1:i2], None))
            right.append(_run(wb[j1:j2], None))
            continue
        left.append(_run(wa[i1:i2], "mark", "only-a"))
        right.append(_run(wb[j1:j2], "mark", "only-b"))
    return mark_safe("".join(left)), mark_safe("".join(right))


def inline_diff(before: str, after: str) -> SafeString:
    """One text: the words ``before`` had and ``after`` lost in <del>, the words added in <ins> (escaped)."""
    wa, wb = words(before), words(after)
    out: list[str] = []
    for op, i1, i2, j1, j2 in _opcodes(wa, wb):
        if op == "equal":
            out.append(_run(wb[j1:j2], None))
            continue
        removed, added = _run(wa[i1:i2], "del"), _run(wb[j1:j2], "ins")
        out.append(removed + (" " if removed and added and not removed.endswith(" ") else "") + added)
    return mark_safe("".join(out))


def differences(a: str, b: str, limit: int = 3) -> list[tuple[str, str]]:
    """What changed from ``a`` to ``b`` in plain words: up to ``limit`` (before, after) pairs of
    spans, either side "" when one text only adds or drops words."""
    wa, wb = words(a), words(b)
    found: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in _opcodes(wa, wb):
        if op == "equal":
            continue
        old = "".join(w.text + w.space for w in wa[i1:i2]).strip()
        new = "".join(w.text + w.space for w in wb[j1:j2]).strip()
        if not re.search(r"\w", old + new):
            continue  # punctuation only
        found.append((_short(old), _short(new)))
        if len(found) == limit:
            break
    return found


def _short(span: str, limit: int = 60) -> str:
    span = " ".join(span.split())
    return span if len(span) <= limit else span[: limit - 1].rsplit(" ", 1)[0] + "…"
