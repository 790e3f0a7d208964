"""The text two notes that say one fact become: a reviewer's "same fact", the offline model's
merges and the pending-merge job's fold all write it (one rule for a merged text).

The older note's text comes first, each sentence once, with its line breaks; then each
sentence of the newer note that says something the text does not say yet. A newer sentence
takes the place of an older one it contradicts (the newer note is the later word, so the
merged text never says both: "Ana works at Farfetch." / "Ana no longer works at Farfetch.")
or says in full and adds to ("… on Sundays." / "… on Sundays before breakfast."). A newer
sentence is left out when it adds no content word the text lacks.

Pure and model-free, so the prepared text on a card is exactly what the decision writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from engine.reading.contradiction_rules import contradiction
from engine.reading.sentences import REPORTING, sentences
from engine.reading.statements import split_words
from engine.reading.stop_words import NOT_CONTENT


def _lines(text: str) -> list[list[str]]:
    """The text's non-empty lines, each as its sentences."""
    return [found for found in (sentences(line) for line in text.splitlines()) if found]


def _key(sentence: str) -> str:
    return re.sub(r"[\W_]+", "", sentence.casefold())


def _content(sentence: str) -> set[str]:
    return {
        w for w in split_words(sentence) if w not in NOT_CONTENT and w not in REPORTING and any(c.isalnum() for c in w)
    }


def merged_text(older: str, newer: str) -> str:
    """``older`` with what ``newer`` adds, each sentence once, line breaks kept (see the module)."""
    lines: list[list[str]] = []
    seen: set[str] = set()
    for line in _lines(older):
        kept = []
        for sentence in line:
            if _key(sentence) not in seen:
                kept.append(sentence)
                seen.add(_key(sentence))
        if kept:
            lines.append(kept)
    known = set().union(*(_content(s) for line in lines for s in line))
    added: list[list[str]] = []
    for line in _lines(newer):
        extra: list[str] = []
        for sentence in line:
            if _key(sentence) in seen:
                continue
            content = _content(sentence)
            if not _replace(lines, sentence, seen, partial(_contradicted_by, sentence)):
                if content and content <= known:
                    continue  # says nothing the text does not say already
                # It says what an older sentence says, and more: it takes that sentence's place.
                if not _replace(lines, sentence, seen, partial(_said_within, content)):
                    extra.append(sentence)
            seen.add(_key(sentence))
            known |= content
        if extra:
            added.append(extra)
    # Several lines on either side: what the newer note adds keeps its own lines; otherwise it
    # continues the older note's one line.
    if len(lines) > 1 or len(_lines(newer)) > 1 or not lines:
        lines.extend(added)
    else:
        lines[-1].extend(s for extra in added for s in extra)
    return "\n".join(_join(line) for line in lines)


def _join(sentences: list[str]) -> str:
    """Sentences of one line: a space after a Western full stop, none after a Chinese one."""
    out = ""
    for sentence in sentences:
        out += sentence if not out or out[-1] in "。！？" else f" {sentence}"
    return out


def _contradicted_by(new: str, old: str) -> bool:
    return contradiction(old, new) is not None


def _said_within(content: set[str], old: str) -> bool:
    """Every content word of ``old`` is in ``content``: the newer sentence says it, and maybe more."""
    words = _content(old)
    return bool(words) and words <= content


def _replace(lines: list[list[str]], sentence: str, seen: set[str], replaces: Callable[[str], bool]) -> bool:
    """Put ``sentence`` in place of the first older sentence ``replaces`` picks; False if none."""
    for line in lines:
        for i, old in enumerate(line):
            if replaces(old):
                seen.discard(_key(old))
                line[i] = sentence
                return True
    return False
