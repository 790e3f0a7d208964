"""The default MiniLM run by ONNX Runtime: the same vectors, for less CPU, without PyTorch.

A query or a write embeds one or two short texts at a time. For those, PyTorch's
per-layer overhead is most of the cost: on the 2-core machine one MiniLM encode took
~21 ms of CPU through sentence-transformers and ~8.5 ms through ONNX Runtime on one
thread, with vectors equal to 1.5e-7 (docs/benchmarks.md, round 2). Batches gain too, less: 256 chat
turns took 9.0 ms a text in chunks of 32 against PyTorch's 12.4 on one thread, so once a graph
is verified it embeds every batch (embeddings.ONNX_BATCH).

The ONNX graph is exported once from the very weights sentence-transformers loaded
(``torch.onnx.export``, needs the ``onnx`` package) into a cache file keyed by the
weights' size and mtime, written to a temporary name and renamed, so concurrent
processes never read half a file. Before it is used, its vector for a probe text
must match the PyTorch model's within ``TOLERANCE``; any failure (a package missing,
an architecture it does not cover, a mismatch) leaves the embedder on PyTorch.

Only a plain sentence-transformers stack is covered: a Transformer module followed by
mean pooling (and optionally a Normalize module); vectors are always normalised here.

A start without PyTorch (``load_verified``): importing torch and sentence-transformers took
20–35 s of a restart on a loaded machine, and a server needs neither to answer searches. Once
a graph has matched PyTorch, its probe vectors are recorded beside it (``<graph>.verified``);
a later start runs the graph with the model's own ``tokenizer.json`` (the Rust ``tokenizers``
library, no transformers import) and uses it only if it reproduces the recorded vectors within
``TOLERANCE``. PyTorch is then never imported by that process.
This module does not import Django.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("engine.index.onnx_encoder")

TOLERANCE = 1e-4  # max |Δ| per coordinate against PyTorch on the probes; measured ≤ 2e-7
PROBE = "Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted."
# Checked as one padded batch: a plain sentence, outer whitespace, one past the token limit.
PROBES = (PROBE, "  Melanie: Thanks!\n", " ".join(["Mel painted a sunrise over the lake"] * 60))
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def cache_dir() -> Path:
    """Where exported graphs live: ``AMEM_ONNX_CACHE``, else the user's cache folder."""
    configured = os.environ.get("AMEM_ONNX_CACHE")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "amem" / "onnx"


class RustTokenizer:
    """The model's ``tokenizer.json`` through ``tokenizers``, answering like transformers' fast tokenizer."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(path))

    def __call__(self, texts: list[str], *, max_length: int, **_: Any) -> dict[str, np.ndarray]:
        self._tokenizer.enable_truncation(max_length)
        self._tokenizer.enable_padding()
        encodings = self._tokenizer.encode_batch(list(texts))
        return {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }


class OnnxEncoder:
    """Tokenise like sentence-transformers, run the exported graph, mean-pool, normalise."""

    def __init__(self, session: Any, tokenizer: Any, max_length: int) -> None:
        self._session = session
        self.tokenizer = tokenizer
        self.max_length = max_length
        self._wanted = [i.name for i in session.get_inputs()]

    def encode(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer(
            list(texts), padding=True, truncation="longest_first", max_length=self.max_length, return_tensors="np"
        )
        feed = {name: np.asarray(enc[name], dtype=np.int64) for name in self._wanted}
        hidden = self._session.run(None, feed)[0]
        mask = np.asarray(enc["attention_mask"], dtype=np.float32)[..., None]
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def _plain_stack(model: Any) -> bool:
    """Transformer → mean pooling (→ Normalize): the only stack the export reproduces."""
    modules = list(model)
    if len(modules) not in (2, 3) or not hasattr(modules[0], "auto_model"):
        return False
    pooling = modules[1]
    mode = getattr(pooling, "pooling_mode", None)  # sentence-transformers ≥ 6: one name
    if mode is None:  # older releases: one flag per mode
        flags = [k for k, v in vars(pooling).items() if k.startswith("pooling_mode_") and v is True]
        mode = "mean" if flags == ["pooling_mode_mean_tokens"] else "other"
    if mode != "mean":
        return False
    return len(modules) == 2 or type(modules[2]).__name__ == "Normalize"


# How much of each weights file, at its start and at its end, identifies the model's graph.
_SAMPLE = 1 << 20


def _graph_path(location: str) -> Path:
    """One graph per model, whichever checkout or virtualenv holds its weights.

    The key is the weights' content (size and their first and last MiB), not their path or
    time stamp: every checkout's venv installs its own copy of the same file, and a key by
    path exported a 90 MB graph per checkout.
    """
    weights = sorted(Path(location).glob("*.safetensors")) or sorted(Path(location).glob("*.bin"))
    if not weights:
        raise FileNotFoundError(f"no weights under {location}")
    digest = hashlib.sha256()
    for w in weights:
        size = w.stat().st_size
        digest.update(f"{w.name}:{size}".encode())
        with w.open("rb") as f:
            digest.update(f.read(_SAMPLE))
            f.seek(max(size - _SAMPLE, 0))
            digest.update(f.read(_SAMPLE))
    return cache_dir() / f"{Path(location).name}-{digest.hexdigest()[:16]}.onnx"


def _export(model: Any, target: Path) -> None:
    import torch

    bert = model[0].auto_model

    class LastHidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = model.tokenizer([PROBE], return_tensors="pt")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, scratch = tempfile.mkstemp(dir=target.parent, suffix=".onnx.part")
    os.close(fd)
    try:
        # The tracer warns that shapes and branches it saw become constants; the graph is only
        # used after it matches PyTorch on probes of other batch sizes and lengths (load below),
        # so the warnings would only alarm whoever starts the service for the first time. The
        # TorchScript exporter is chosen on purpose (the newer one needs onnxscript), so its
        # deprecation notice is silenced too.
        with torch.inference_mode(False), torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", category=torch.jit.TracerWarning)
            warnings.simplefilter("ignore", category=DeprecationWarning)
            warnings.filterwarnings("ignore", message="Exporting aten::index operator", category=UserWarning)
            torch.onnx.export(
                LastHidden().eval(),
                tuple(example[name] for name in _INPUTS),
                scratch,
                input_names=list(_INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes={name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")},
                opset_version=17,
                dynamo=False,
            )
        os.chmod(scratch, 0o644)  # mkstemp makes it private; other users of the cache read it too
        os.replace(scratch, target)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)


def _session(graph: Path) -> Any:
    """An ONNX Runtime session on the CPU, one thread: a second thread only waits on a busy core
    (the other one serves requests)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])


def load(model: Any, location: str) -> OnnxEncoder | None:
    """An ONNX encoder equal to ``model`` (a loaded SentenceTransformer) within TOLERANCE, or None."""
    if importlib.util.find_spec("onnxruntime") is None:
        return None
    if not _plain_stack(model) or "token_type_ids" not in model.tokenizer([PROBE]):
        return None
    try:
        path = _graph_path(location)
        if not path.exists():
            log.info("exporting %s to ONNX at %s (once)", location, path)
            _export(model, path)
        encoder = OnnxEncoder(_session(path), model.tokenizer, int(model.max_seq_length))
        expected = model.encode(list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        gap = float(np.max(np.abs(encoder.encode(list(PROBES)) - expected)))
    except Exception as exc:  # an optional speed-up: any failure keeps PyTorch
        log.warning("ONNX Runtime not used for %s: %s: %s", location, type(exc).__name__, exc)
        return None
    if gap > TOLERANCE:
        log.warning("ONNX Runtime not used for %s: differs from PyTorch by %.2g", location, gap)
        return None
    _record(path, expected, int(model.max_seq_length))
    return encoder


def _record(graph: Path, expected: np.ndarray, max_length: int) -> None:
    """What PyTorch answered for the probes, beside the graph, for starts without PyTorch."""
    record = {"max_seq_length": max_length, "probes": np.asarray(expected, dtype=np.float64).tolist()}
    try:
        fd, scratch = tempfile.mkstemp(dir=graph.parent, suffix=".verified.part")
        with os.fdopen(fd, "w") as handle:
            json.dump(record, handle)
        os.chmod(scratch, 0o644)
        os.replace(scratch, graph.with_suffix(".verified"))
    except OSError as exc:  # a read-only cache: every start loads PyTorch, as before
        log.warning("ONNX probe record not written beside %s: %s", graph, exc)


def load_verified(location: str) -> tuple[OnnxEncoder, int] | None:
    """An encoder (and the model's dimension) without PyTorch, if an earlier start recorded the
    graph's probe vectors and the graph, tokenised by ``tokenizer.json``, still gives them; else None."""
    try:
        graph = _graph_path(location)
        record = json.loads(graph.with_suffix(".verified").read_text())
        tokenizer_file = Path(location) / "tokenizer.json"
        if not graph.exists() or not tokenizer_file.is_file():
            return None

        encoder = OnnxEncoder(_session(graph), RustTokenizer(tokenizer_file), int(record["max_seq_length"]))
        expected = np.asarray(record["probes"], dtype=np.float32)
        gap = float(np.max(np.abs(encoder.encode(list(PROBES)) - expected)))
    except Exception as exc:  # no record yet, a package missing, a changed file: the PyTorch path decides
        log.debug("no ONNX start without PyTorch for %s: %s: %s", location, type(exc).__name__, exc)
        return None
    if gap > TOLERANCE:
        log.warning(
            "ONNX start without PyTorch not used for %s: differs from the recorded vectors by %.2g", location, gap
        )
        return None
    return encoder, int(expected.shape[1])


# The query encoder: the verified graph with its weights in 8 bits, one scale per output channel
# (ONNX Runtime's dynamic quantization). A search embeds one short text, and on one thread the
# 8-bit graph took 2.6-3.4 ms where the float graph took 6.1-6.6 (300 LoCoMo questions, load
# 1.0); its vectors stand at a cosine of 0.991-1.000 (mean 0.9945) to the float graph's. Without
# per-channel scales it was faster still (2.3-3.0 ms) but 0.946 at worst. Documents stay in
# float: only the query side moves, and the recall it keeps is measured in docs/benchmarks.md
# ("Search without the ORM, queries in 8 bits").
QUERY_AGREEMENT = 0.98  # least cosine of a probe's 8-bit vector to the float graph's


def _quantized_path(graph: Path) -> Path:
    return graph.with_name(graph.stem + ".int8.onnx")


def _quantize(graph: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fd, scratch = tempfile.mkstemp(dir=target.parent, suffix=".int8.part.onnx")
    os.close(fd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(str(graph), scratch, weight_type=QuantType.QInt8, per_channel=True)
        os.chmod(scratch, 0o644)
        os.replace(scratch, target)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)


def load_query_encoder(full: OnnxEncoder, location: str) -> OnnxEncoder | None:
    """The 8-bit query encoder for the verified graph ``full`` serves (made once, cached beside it),
    if its probe vectors keep ``QUERY_AGREEMENT`` to ``full``'s; else None (queries use ``full``)."""
    try:
        target = _quantized_path(_graph_path(location))
        if not target.exists():
            log.info("quantizing the query encoder of %s to %s (once)", location, target)
            _quantize(_graph_path(location), target)
        encoder = OnnxEncoder(_session(target), full.tokenizer, full.max_length)
        agreement = float(np.min(np.sum(encoder.encode(list(PROBES)) * full.encode(list(PROBES)), axis=1)))
    except Exception as exc:  # an optional speed-up: any failure keeps the float graph for queries
        log.warning("8-bit query encoder not used for %s: %s: %s", location, type(exc).__name__, exc)
        return None
    if agreement < QUERY_AGREEMENT:
        log.warning("8-bit query encoder not used for %s: cosine %.3f to the float graph", location, agreement)
        return None
    return encoder
