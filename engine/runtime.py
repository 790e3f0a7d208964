"""Process-wide engine parts built from settings: the embedder and the vector store.

The embedded Qdrant shard may be opened by one process only; a process whose
role is ``worker`` never opens it (its writes stay dirty until the web process
syncs them, docs/architecture.md §2).
"""

from __future__ import annotations

import threading

from engine.config import get_config
from engine.errors import ConfigError, IndexUnavailable
from engine.index.embeddings import Embedder, get_embedder
from engine.index.served import ServedStore
from engine.index.store import ClientStore, EdgeStore, VectorStore
from engine.index.tokenize import words
from engine.llm.client import LLM, Recorder, build_llm
from engine.llm.offline import OfflineRules

_store: VectorStore | None = None
_model_override: str | None = None
_llm: LLM | None = None
_llm_recorder: Recorder | None = None  # set when Django starts (amem_site/apps.py)
_lock = threading.Lock()
# Set by the serving process once the model a write needs is loaded (amem_site/wsgi.py); a
# process that never warms up (a command, a test) is not waiting for anything.
_warm_up: threading.Event | None = None


def begin_warm_up() -> threading.Event:
    global _warm_up
    _warm_up = threading.Event()
    return _warm_up


def takes_writes() -> bool:
    """Whether a write would be answered without waiting for a model load."""
    return _warm_up is None or _warm_up.is_set()


def wait_until_takes_writes(timeout: float) -> bool:
    warm_up = _warm_up
    return warm_up is None or warm_up.wait(timeout)


def embedder() -> Embedder:
    cfg = get_config()
    return get_embedder(_model_override or cfg.embed_model, device=cfg.embed_device, batch_size=cfg.embed_batch)


def use_model(name: str | None) -> None:
    """Embed with ``name`` in this process (amem_reindex --model); the store is reopened."""
    global _model_override
    close_store()
    _model_override = name


def index_available() -> bool:
    """Whether this process may open the index (workers in embedded mode may not)."""
    cfg = get_config()
    return bool(cfg.qdrant_url) or cfg.process_role != "worker"


def store() -> VectorStore:
    """The process's VectorStore, opened on first use."""
    global _store
    if _store is not None:
        return _store
    with _lock:
        if _store is None:
            cfg = get_config()
            if not index_available():
                raise IndexUnavailable("this worker process does not open the embedded index")
            emb = embedder()
            if cfg.qdrant_url:
                _store = ClientStore(emb.model_name, emb.dimension, url=cfg.qdrant_url, api_key=cfg.qdrant_api_key)
            elif cfg.index_socket:  # several web processes: the index process owns the shard
                _store = ServedStore(cfg.index_socket, bytes.fromhex(cfg.index_key), emb.model_name, emb.dimension)
            else:
                _store = EdgeStore(cfg.qdrant_path, emb.model_name, emb.dimension)
    return _store


def opened_store() -> VectorStore | None:
    """The index store if this process has opened it, without opening it."""
    return _store


def set_store(new: VectorStore | None) -> VectorStore | None:
    """Swap the process's store (tests, reindex into a fresh index); returns the old one."""
    global _store
    with _lock:
        old, _store = _store, new
    return old


def close_store() -> None:
    old = set_store(None)
    if old is not None:
        old.close()


def set_llm_recorder(recorder: Recorder | None) -> None:
    """Who keeps a row per model call: the site registers memories' recorder when Django starts
    (amem_site/apps.py), so the engine needs no import of the models' accounting code."""
    global _llm_recorder
    _llm_recorder = recorder


def llm() -> LLM:
    """The process's LLM façade (settings: AMEM_LLM_ENV > AMEM_LLM > defaults)."""
    global _llm
    if _llm is not None:
        return _llm
    from django.conf import settings

    with _lock:
        if _llm is None:
            offline = OfflineRules(lambda texts: embedder().encode(list(texts)), words)
            try:
                _llm = build_llm(settings.AMEM_LLM_ENV, settings.AMEM_LLM, recorder=_llm_recorder, offline=offline)
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
    return _llm


def reset_llm() -> None:
    """Forget the LLM façade so the next call rebuilds it from settings (tests, reconfiguration)."""
    global _llm
    with _lock:
        _llm = None
