"""Tokens for BM25: CJK through jieba-family segmentation, other scripts as Unicode words.

The seed only kept ASCII ``\\w+`` runs outside CJK text, so Cyrillic, Hangul and
accented Latin produced no tokens or broken ones; here every script that has
word characters yields tokens. Han runs go through rjieba (jieba-rs): fast,
no dictionary-load delay, same segmentation as jieba.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

# Han ideographs (incl. extension A and compatibility ideographs).
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUN = re.compile(rf"([{_HAN}]+)|([^\W{_HAN}]+)")
_HAS_WORD = re.compile(rf"[\w{_HAN}]")

# Function words that carry no retrieval signal in short notes (kept small on purpose:
# BM25's IDF already discounts common words; these only remove pure noise).
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "ours",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "you",
        "your",
        "yours",
        "do",
        "does",
        "did",
        "的",
        "了",
        "和",
        "是",
        "在",
        "我",
        "你",
        "他",
        "她",
        "它",
        "们",
        "我们",
        "你们",
        "他们",
        "这",
        "那",
        "就",
        "也",
        "都",
        "而",
        "及",
        "与",
        "着",
        "或",
        "一个",
        "没有",
        "吗",
        "呢",
        "吧",
        "啊",
    ]
)


@lru_cache(maxsize=1)
def _cutter():
    import rjieba

    # Search mode also emits the parts of long words (记忆系统 → 记忆, 系统, 记忆系统),
    # so a query for 记忆 finds a note that says 记忆系统.
    return rjieba.cut_for_search


# Recorded with every index collection (engine/index/store.py): terms from another version of these
# rules would not meet the query's, so opening such an index asks for `amem_reindex --recreate`.
LEXICAL_VERSION = "snowball-en-1"

_LATIN = re.compile(r"[a-z]+")
_local = threading.local()


def _stem(word: str) -> str:
    """English Snowball stem of a word of plain Latin letters; anything else is kept.

    Conversation turns say "paintings", "painted", "went camping"; questions say
    "paint", "camp". A PyStemmer object is not safe to share between threads.
    """
    if not _LATIN.fullmatch(word):
        return word
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    return stemmer.stemWord(word)


def _normalise(text: str) -> str:
    # NFKC folds full-width letters/digits (Ｑｄｒａｎｔ → Qdrant); casefold lowers every script.
    return unicodedata.normalize("NFKC", text).casefold()


def tokenize(text: str, *, drop_stop_words: bool = False, stem: bool = True) -> list[str]:
    """Lower-cased word tokens of ``text`` in reading order: BM25's terms.

    ``stem=False`` keeps the words as written (offline keywords are shown to people).
    Stemming alone raised LoCoMo recall@10 of the fused search by 0.017 (docs/benchmarks.md).
    """
    if not text:
        return []
    tokens: list[str] = []
    for han, word in _RUN.findall(_normalise(text)):
        if han:
            tokens.extend(t for t in _cutter()(han) if _HAS_WORD.search(t))
        else:
            tokens.append(word)
    if drop_stop_words:
        tokens = [t for t in tokens if t not in STOP_WORDS]
    return [_stem(t) for t in tokens] if stem else tokens


def words(text: str) -> list[str]:
    """The words of ``text`` as written (lower-cased, not stemmed): for keywords people read."""
    return tokenize(text, stem=False)
