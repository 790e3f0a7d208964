"""Tokens for BM25 and words for people: Han text through jieba-family segmentation, other
scripts as Unicode words.

The seed only kept ASCII ``\\w+`` runs outside CJK text, so Cyrillic, Hangul and
accented Latin produced no tokens or broken ones; here every script that has
word characters yields tokens. Han runs go through rjieba (jieba-rs): fast,
no dictionary-load delay, same segmentation as jieba.

BM25 does not index one segmentation of a Han run but every term a reader could look
for in it (``han_terms``): jieba's full mode (each dictionary word, overlapping, and each
character) plus every pair of adjacent characters. A query and a note that jieba cuts
differently ("失望" against "失落", "大吵了一架" against "吵架") still share terms, and IDF
keeps the common characters cheap. On MADial zh this raised BM25 R@10 from 0.586
(search-mode words) to 0.669 (docs/benchmarks.md, "MADial round 2").
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable
from functools import lru_cache

# Han ideographs (incl. extension A and compatibility ideographs).
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUN = re.compile(rf"([{_HAN}]+)|([^\W{_HAN}]+)")
_HAS_WORD = re.compile(rf"[\w{_HAN}]")

# Function words that carry no retrieval signal in short notes (kept small on purpose:
# BM25's IDF already discounts common words; these only remove pure noise).
STOP_WORDS = frozenset(
    """
    a an and are as at be but by for from had has have he her hers him his i if in into is it its me my no not
    of on or our ours she so than that the their them then there these they this to too us was we were what when
    where which who whom why will with you your yours do does did 的 了 和 是 在 我 你 他 她 它 们 我们 你们
    他们 这 那 就 也 都 而 及 与 着 或 一个 没有 吗 呢 吧 啊
    """.split()
)


@lru_cache(maxsize=1)
def _jieba():
    import rjieba

    return rjieba


def han_terms(run: str) -> list[str]:
    """BM25 terms of a run of Han characters: jieba's full mode and the character bigrams.

    Full mode (``cut_all``) yields every dictionary word found anywhere in the run,
    overlapping, and every single character (记忆系统 → 记, 记忆, 记忆系统, 忆, 系, 系统, 统);
    the bigrams cover pairs no dictionary knows (names, new words). A two-character
    dictionary word comes out of both, so it counts twice: measured slightly better than
    keeping one copy (MADial zh R@10 0.689 against 0.669 with query term weights).
    """
    bigrams = [run[i : i + 2] for i in range(len(run) - 1)]
    return [*_jieba().cut_all(run), *bigrams]


_HAN_START = re.compile(rf"[{_HAN}]")


def is_han(term: str) -> bool:
    """A term cut from a Han run (``han_terms``): no other run holds a Han character, so its first tells."""
    return _HAN_START.match(term) is not None


def han_words(run: str) -> list[str]:
    """Words of a Han run as a reader would cut it (search mode: 记忆系统 → 记忆, 系统, 记忆系统)."""
    return _jieba().cut_for_search(run)


# Recorded with every index collection (engine/index/store.py): terms from another version of these
# rules would not meet the query's, so opening such an index asks for `amem_reindex --recreate`.
# "snowball-en-1": English stems, Han runs in search-mode words; "-2": Han runs in han_terms;
# "-context-0.3": a note's context terms count 0.3 (engine/index/store.py: bm25_document_vector).
LEXICAL_VERSION = "snowball-en-han-grams-context-0.3"

_LATIN = re.compile(r"[a-z]+")
_local = threading.local()


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """English Snowball stem of a word of plain Latin letters; anything else is kept.

    Conversation turns say "paintings", "painted", "went camping"; questions say
    "paint", "camp". A PyStemmer object is not safe to share between threads (the cache is:
    two threads may stem one word twice, each with its own stemmer). Cached because a search
    stems its ten matches' words again, about 300 words, most of them seen before.
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


def _split(text: str, split_han: Callable[[str], list[str]]) -> list[str]:
    """Lower-cased tokens of ``text`` in reading order, Han runs cut by ``split_han``."""
    if not text:
        return []
    tokens: list[str] = []
    for han, word in _RUN.findall(_normalise(text)):
        if han:
            tokens.extend(t for t in split_han(han) if _HAS_WORD.search(t))
        else:
            tokens.append(word)
    return tokens


def tokenize(text: str, *, drop_stop_words: bool = False) -> list[str]:
    """BM25's terms of ``text``: English words stemmed, Han runs as ``han_terms``.

    Stemming alone raised LoCoMo recall@10 of the fused search by 0.017 (docs/benchmarks.md).
    """
    tokens = _split(text, han_terms)
    if drop_stop_words:
        tokens = [t for t in tokens if t not in STOP_WORDS]
    return [_stem(t) for t in tokens]


def words(text: str) -> list[str]:
    """The words of ``text`` as written (lower-cased, not stemmed, Han runs in search-mode
    words): for keywords people read."""
    return _split(text, han_words)
