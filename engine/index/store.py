"""VectorStore: the one choke point to Qdrant (docs/architecture.md §2).

Two backends with one interface:

* ``EdgeStore`` — qdrant-edge-py, Qdrant's engine in-process; one shard folder
  per collection under the data dir. The embedded default.
* ``ClientStore`` — qdrant-client, for a Qdrant server or cluster
  (``AMEM_QDRANT_URL``); its local mode (``path=`` or ``:memory:``) speaks the
  same API and is what the tests of this path run on.

Callers build filters from the backend-neutral conditions below, so access
rules (memories/access.py) never see Qdrant types. Each collection records the
embedding model and dimension that built it; opening it with another model is
an ``IndexMismatch`` naming the fix.

This module does not import Django.
"""

from __future__ import annotations

import hashlib
import json
import threading
import zlib
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import numpy as np

from engine.errors import IndexLocked, IndexMismatch, IndexUnavailable
from engine.index import folder_lock
from engine.index.tokenize import LEXICAL_VERSION, is_han

DENSE = "dense"
SPARSE = "sparse"
META_FILE = "amem_index.json"
UNRECORDED_LEXICAL = "words-1"  # BM25 terms of an index written before the rules were recorded
ACTIVE = "active"
RETIRED = "retired"

# Payload fields that queries filter on; each gets a payload index.
# Retired/active is the keyword "status", not a bool: qdrant-edge 0.9 cannot match bool payloads.
KEYWORD_FIELDS = ("agent_id", "owner", "readers", "writers", "subjects", "note_type", "topics", "category", "status")
# Fields that name people or words of a note: the index stores (and matches) their digests, so
# no segment or write-ahead log of Qdrant ever holds a name an erasure must remove.
DIGESTED_FIELDS = ("subjects", "topics")
PAYLOAD_VERSION = "digest-1"
# Qdrant's own vacuum thresholds, restored after an erasure's forced vacuum (EdgeStore.erase).
VACUUM_DEFAULTS = {"deleted_threshold": 0.2, "vacuum_min_vector_number": 1000}
# The largest segment Qdrant's merge optimizer builds, in KB of vectors (64 MB: about 43,000 notes of
# 384 floats). The server's drainer optimizes while the server runs (engine/index_sync/outbox.py),
# and that call holds the GIL: with Qdrant's default, each hour's new segment was merged into the
# largest one, rebuilding it, so the pause grew with the store (100,000 notes + 8,000 new: 8–11 s);
# capped, it builds at most one such segment (2–5 s, whatever the store's size), at the price of a
# segment more per 43,000 notes written through the API. A bulk load's one optimize (amem_import,
# amem_reindex) still indexes its segment whole. docs/benchmarks.md, "The index optimized while the
# server runs".
MAX_SEGMENT_KB = 65_536
UNRECORDED_PAYLOAD = "plain"
# Candidates scored on the int8 copies per result wanted, before rescoring on the float originals
# (EdgeStore._config): 2 brought recall@10 against exact search from 0.849 to 0.866 at 100k notes,
# where the float index gave 0.874 (docs/benchmarks.md, "Vectors on disk").
DENSE_OVERSAMPLING = 2.0


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


def stored_payload(payload: dict) -> dict:
    """The payload as the index keeps it: digested fields hashed (see DIGESTED_FIELDS)."""
    return {k: [digest(v) for v in val] if k in DIGESTED_FIELDS else val for k, val in payload.items()}


def stored_value(key: str, value: str) -> str:
    return digest(value) if key in DIGESTED_FIELDS else value


# --- Backend-neutral filter conditions ----------------------------------------


@dataclass(frozen=True)
class Eq:
    """Payload ``key`` equals ``value`` (for a list field: contains it)."""

    key: str
    value: str


@dataclass(frozen=True)
class In:
    """Payload ``key`` equals (or, for lists, contains) any of ``values``."""

    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Empty:
    """Payload list ``key`` is empty or missing."""

    key: str


@dataclass(frozen=True)
class AnyOf:
    """At least one of the conditions holds."""

    conditions: tuple[Condition, ...]


@dataclass(frozen=True)
class Not:
    condition: Condition


Condition = Eq | In | Empty | AnyOf | Not


@dataclass(frozen=True)
class IndexFilter:
    """All ``must`` conditions hold."""

    must: tuple[Condition, ...] = ()

    def and_(self, *more: Condition) -> IndexFilter:
        return IndexFilter(self.must + tuple(more))


# --- Points and hits -------------------------------------------------------------


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]


@dataclass
class IndexPoint:
    id: str
    dense: np.ndarray
    sparse: SparseVector
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    id: str
    score: float


# --- BM25 sparse vectors ------------------------------------------------------------


# What one word of a note's context counts in BM25 against one of its own text (bm25_document_vector).
CONTEXT_TERM_WEIGHT = 0.3

# How much later a Han term's weight saturates than another's (its k1 times this). A Han run is
# indexed as overlapping terms (engine/index/tokenize.py: han_terms): a two-character word comes
# out of jieba's full mode and of the bigrams, so one mention counts twice, and the ``tf`` of a
# word said twice was already saturated. Chosen on MADial's zh tuning half (1, 2, 3, 4, 5, 6, 8:
# R@10 0.664, 0.676, 0.677, 0.677, 0.676, 0.676, 0.673; 4 best over R@1–R@20); held out 0.681 →
# 0.708 (docs/benchmarks.md, "Han terms saturate later"). Other scripts keep ``k1``.
HAN_SATURATION = 4.0


def term_id(token: str) -> int:
    """A stable 31-bit id for a token (collisions are rare and only blur BM25 a little)."""
    return zlib.crc32(token.encode("utf-8")) & 0x7FFFFFFF


def bm25_document_vector(
    tokens: Sequence[str], *, k1: float, b: float, avg_len: float, context: Sequence[str] = ()
) -> SparseVector:
    """Term-frequency half of BM25; Qdrant's IDF modifier supplies the other half.

    weight(t) = tf·(k+1) / (tf + k·(1 − b + b·len/avg_len)), so a query vector
    of ones scores sum(idf(t)·weight(t)) — BM25 with the seed's "+1" IDF. ``k`` is ``k1``, for a
    Han term ``k1·HAN_SATURATION``: at one mention in a note of average length both weigh 1.

    ``context`` tokens (the note's context: for a conversation turn, the turn before it) count
    ``CONTEXT_TERM_WEIGHT`` each in tf, a two-field BM25F: a question's words are often those of
    the turn an answer replies to, but a note that says them itself is the better match (LoCoMo
    replay: R@1 0.272 → 0.322, R@10 0.747 → 0.752; docs/benchmarks.md, "LoCoMo round 3"). In the
    length they count as much, but never more than the note's own terms: a short answer after a
    long turn was weighed as a long note (a 10-term reply after 140 terms as 52), while leaving
    them out of the length altogether let replies outrank the turns that say the words (LoCoMo
    R@1 0.314 → 0.281).
    """
    counts: dict[int, float] = defaultdict(float)
    han: set[int] = set()
    for weight, terms in ((1.0, tokens), (CONTEXT_TERM_WEIGHT, context)):
        for t in terms:
            i = term_id(t)
            counts[i] += weight
            if is_han(t):
                han.add(i)
    length = max(len(tokens) + min(CONTEXT_TERM_WEIGHT * len(context), len(tokens)), 1.0)
    norm = 1 - b + b * length / avg_len
    indices = sorted(counts)
    values = []
    for i in indices:
        k = k1 * HAN_SATURATION if i in han else k1
        values.append(counts[i] * (k + 1) / (counts[i] + k * norm))
    return SparseVector(indices, values)


# Saturation of a query term's weight in its count: 1 → 1, 2 → 1.33, 3 → 1.5, never above 2.
QUERY_TERM_K3 = 1.0


def bm25_query_vector(tokens: Sequence[str]) -> SparseVector:
    """A term the query repeats weighs more, with saturation: qtf·(k3+1)/(qtf+k3), BM25's
    query-side factor.

    The seed gave every distinct term weight 1. A conversational query states its topic
    several times ("玩具" three times in seven turns, "dog" in every line) among words said
    once in passing; counting them raised MADial BM25 R@10 zh 0.669 → 0.689 and
    en 0.616 → 0.626 (docs/benchmarks.md, "MADial round 2"). A one-line question, where
    every term occurs once, scores as before.
    """
    counts = Counter(term_id(t) for t in tokens)
    indices = sorted(counts)
    k3 = QUERY_TERM_K3
    return SparseVector(indices, [counts[i] * (k3 + 1) / (counts[i] + k3) for i in indices])


# --- The interface ---------------------------------------------------------------------


@dataclass(frozen=True)
class IndexMeta:
    embedding_model: str
    dimension: int
    # How BM25 terms were made; indexes from before it was recorded had unstemmed words.
    lexical: str = UNRECORDED_LEXICAL
    # How names in the payload are kept; indexes from before it was recorded kept them plain.
    payload: str = UNRECORDED_PAYLOAD

    def as_dict(self) -> dict:
        return {
            "embedding_model": self.embedding_model,
            "dimension": self.dimension,
            "lexical": self.lexical,
            "payload": self.payload,
        }

    def check(self, model: str, dimension: int, collection: str) -> None:
        if self.dimension != dimension or self.embedding_model != model:
            raise IndexMismatch(
                f"index collection {collection!r} was built with embedding model "
                f"{self.embedding_model!r} ({self.dimension} dims) but this process uses {model!r} "
                f"({dimension} dims). Rebuild it with `manage.py amem_reindex --model {model}` "
                f"or set AMEM_EMBED_MODEL={self.embedding_model}."
            )
        if self.lexical != LEXICAL_VERSION:
            raise IndexMismatch(
                f"index collection {collection!r} holds BM25 terms made by {self.lexical!r}, this version makes "
                f"{LEXICAL_VERSION!r}; rebuild the index from the database with `manage.py amem_reindex --recreate`."
            )
        if self.payload != PAYLOAD_VERSION:
            raise IndexMismatch(
                f"index collection {collection!r} keeps subject names in plain text, this version keeps digests; "
                "rebuild the index from the database with `manage.py amem_reindex --recreate`."
            )


class VectorStore(ABC):
    """Dense + sparse index of notes, with filtered dense and sparse queries (search fuses them)."""

    def __init__(self, embedding_model: str, dimension: int) -> None:
        self.embedding_model = embedding_model
        self.dimension = dimension
        self._lock = threading.RLock()

    def meta(self) -> IndexMeta:
        """What this process builds: recorded with each new collection, checked on each opened one."""
        return IndexMeta(self.embedding_model, self.dimension, LEXICAL_VERSION, PAYLOAD_VERSION)

    # Collections ----------------------------------------------------------------------
    @abstractmethod
    def ensure_collection(self, name: str) -> None: ...

    @abstractmethod
    def drop_collection(self, name: str) -> None: ...

    @abstractmethod
    def collections(self) -> list[str]: ...

    # Writes ----------------------------------------------------------------------
    @abstractmethod
    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None: ...

    @abstractmethod
    def delete(self, collection: str, ids: Iterable[str]) -> None: ...

    # Reads -----------------------------------------------------------------------
    @abstractmethod
    def query_dense(self, collection: str, vector: np.ndarray, flt: IndexFilter, limit: int) -> list[Hit]: ...

    @abstractmethod
    def query_sparse(self, collection: str, vector: SparseVector, flt: IndexFilter, limit: int) -> list[Hit]: ...

    def query_legs(
        self, collection: str, dense: np.ndarray | None, sparse: SparseVector, flt: IndexFilter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        """Both legs of a search: the dense hits (none without a vector) and the sparse hits."""
        hits = self.query_dense(collection, dense, flt, limit) if dense is not None else []
        return hits, self.query_sparse(collection, sparse, flt, limit)

    @abstractmethod
    def count(self, collection: str, flt: IndexFilter | None = None) -> int: ...

    @abstractmethod
    def ids(self, collection: str) -> Iterator[str]:
        """Every point id in the collection (for reconciling with the database)."""

    # Maintenance -------------------------------------------------------------------
    def optimize(self) -> None:  # noqa: B027 — optional hook: a backend without segments has nothing to do
        """Build HNSW / merge segments after a bulk load (no-op where not needed)."""

    def erase(self, collection: str, ids: Iterable[str]) -> None:
        """Delete points so their bytes leave the files too (erasure). Default: a plain delete;
        a Qdrant server rewrites segments with deleted points by its own vacuum optimizer."""
        self.delete(collection, ids)

    @abstractmethod
    def close(self) -> None: ...

    def ping(self) -> bool:
        """Whether the backend answers (for /healthz)."""
        try:
            self.collections()
            return True
        except Exception:
            return False


# --- qdrant-edge ------------------------------------------------------------------------


class EdgeStore(VectorStore):
    """Embedded Qdrant: one shard folder per collection under ``root``.

    A shard folder is locked by one process; opening it elsewhere raises
    ``IndexLocked`` with what to do instead.
    """

    def __init__(self, root: Path, embedding_model: str, dimension: int) -> None:
        super().__init__(embedding_model, dimension)
        import qdrant_edge  # imported here: the client backend must not need it

        self._q = qdrant_edge
        self.root = Path(root)
        self._shards: dict[str, Any] = {}
        self._claimed = False  # the owner's lock on root (engine/index/folder_lock.py), from the first shard

    def _path(self, name: str) -> Path:
        # Collection names are checked slugs (memories/ids.py); this layer checks again that the
        # folder stays under the index root, since it is the one that opens it.
        path = (self.root / name).resolve()
        if path.parent != self.root.resolve():
            raise IndexUnavailable(f"collection name {name!r} does not name a folder in {self.root}")
        return path

    def _shard(self, name: str) -> Any:
        with self._lock:
            shard = self._shards.get(name)
            if shard is None:
                shard = self._open(name)
                self._shards[name] = shard
            return shard

    def _open(self, name: str) -> Any:
        q = self._q
        if not self._claimed:
            folder_lock.claim(self.root)
            self._claimed = True
        path = self._path(name)
        meta_path = path / META_FILE
        try:
            if meta_path.exists():
                meta = IndexMeta(**json.loads(meta_path.read_text()))
                meta.check(self.embedding_model, self.dimension, name)
                # With the product's config, so a shard from before it follows it too: its vectors go cold
                # at once and its int8 copies are built at the next optimize (amem_reindex).
                return q.EdgeShard.load(str(path), self._config())
            path.mkdir(parents=True, exist_ok=True)
            if any(p.name != META_FILE for p in path.iterdir()):
                raise IndexMismatch(
                    f"index folder {str(path)!r} holds data without an amem record of its model; "
                    f"move it away and run `manage.py amem_reindex`."
                )
            shard = q.EdgeShard.create(str(path), self._config())
            for key in KEYWORD_FIELDS:
                shard.update(q.UpdateOperation.create_field_index(key, q.PayloadSchemaType.Keyword))
            meta_path.write_text(json.dumps(self.meta().as_dict()))
            return shard
        except (IndexMismatch, IndexLocked):
            raise
        except PermissionError as exc:
            raise IndexUnavailable(f"index folder {str(path)!r} is not writable: {exc.strerror}") from None
        except Exception as exc:
            if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                raise IndexLocked(
                    f"the embedded index {str(path)!r} is open in another process (the amem server?). "
                    "Stop that process, or use its API, or point AMEM_QDRANT_URL at a Qdrant server."
                ) from None
            raise IndexUnavailable(f"cannot open the embedded index {str(path)!r}: {exc}") from exc

    def _config(self, **optimizers: Any) -> Any:
        """The shard's config. The float vectors stay on disk (memory-mapped, not read in at load)
        and searches walk the graph on int8 copies kept in memory, a quarter of the size, rescoring
        the best candidates on the floats: Qdrant's default placement kept every float vector
        resident, 1.5 kB a note, most of the process's memory at a million notes."""
        q = self._q
        dense = q.EdgeVectorParams(
            size=self.dimension,
            distance=q.Distance.Cosine,
            memory=q.Memory.Cold,
            quantization_config=q.ScalarQuantizationConfig(q.ScalarType.Int8, quantile=0.99, memory=q.Memory.Pinned),
        )
        return q.EdgeConfig(
            vectors={DENSE: dense},
            sparse_vectors={SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
            optimizers=q.EdgeOptimizersConfig(**{"max_segment_size": MAX_SEGMENT_KB, **optimizers}),
        )

    def ensure_collection(self, name: str) -> None:
        self._shard(name)

    def drop_collection(self, name: str) -> None:
        import shutil

        with self._lock:
            shard = self._shards.pop(name, None)
            if shard is not None:
                shard.close()
            shutil.rmtree(self._path(name), ignore_errors=True)

    def collections(self) -> list[str]:
        if not self.root.exists():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / META_FILE).exists())

    def _filter(self, flt: IndexFilter | None) -> Any:
        if flt is None or not flt.must:
            return None
        return self._q.Filter(must=[self._cond(c) for c in flt.must])

    def _cond(self, cond: Condition) -> Any:
        q = self._q
        if isinstance(cond, Eq):
            return q.FieldCondition(cond.key, match=q.MatchValue(stored_value(cond.key, cond.value)))
        if isinstance(cond, In):
            return q.FieldCondition(cond.key, match=q.MatchAny([stored_value(cond.key, v) for v in cond.values]))
        if isinstance(cond, Empty):
            return q.IsEmptyCondition(cond.key)
        if isinstance(cond, AnyOf):
            return q.Filter(should=[self._cond(c) for c in cond.conditions])
        if isinstance(cond, Not):
            return q.Filter(must_not=[self._cond(cond.condition)])
        raise TypeError(f"unknown condition {cond!r}")

    def _sparse(self, vector: SparseVector) -> Any:
        return self._q.SparseVector(list(vector.indices), [float(v) for v in vector.values])

    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        q = self._q
        shard = self._shard(collection)
        batch = [
            q.Point(
                p.id,
                {DENSE: np.asarray(p.dense, dtype=np.float32).tolist(), SPARSE: self._sparse(p.sparse)},
                stored_payload(p.payload),
            )
            for p in points
        ]
        with self._lock:
            shard.update(q.UpdateOperation.upsert_points(batch))

    def delete(self, collection: str, ids: Iterable[str]) -> None:
        points: list[int | UUID | str] = list(ids)
        if points:
            with self._lock:
                self._shard(collection).update(self._q.UpdateOperation.delete_points(points))

    def _hits(self, points: Any) -> list[Hit]:
        return [Hit(str(p.id), float(p.score)) for p in points]

    def _dense_request(self, vector: np.ndarray, filter: Any, limit: int) -> Any:
        q = self._q
        return q.QueryRequest(
            limit=limit,
            query=q.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist(), using=DENSE),
            filter=filter,
            with_payload=False,
            params=q.SearchParams(
                quantization=q.QuantizationSearchParams(rescore=True, oversampling=DENSE_OVERSAMPLING)
            ),
        )

    def _sparse_request(self, vector: SparseVector, filter: Any, limit: int) -> Any:
        q = self._q
        return q.QueryRequest(
            limit=limit, query=q.Query.Nearest(self._sparse(vector), using=SPARSE), filter=filter, with_payload=False
        )

    def _sparse_hits(self, points: Any) -> list[Hit]:
        return [h for h in self._hits(points) if h.score > 0]

    def query_dense(self, collection: str, vector: np.ndarray, flt: IndexFilter, limit: int) -> list[Hit]:
        return self._hits(self._shard(collection).query(self._dense_request(vector, self._filter(flt), limit)))

    def query_sparse(self, collection: str, vector: SparseVector, flt: IndexFilter, limit: int) -> list[Hit]:
        if not vector.indices:
            return []
        return self._sparse_hits(self._shard(collection).query(self._sparse_request(vector, self._filter(flt), limit)))

    def query_legs(
        self, collection: str, dense: np.ndarray | None, sparse: SparseVector, flt: IndexFilter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        """Both legs in one call to the shard. The shard holds Python's lock while its search
        threads work, so every other request waits for each call: over HTTP, 16 clients, one call
        instead of two served 40.2–53.1 searches a second against 38.3–42.7 (docs/benchmarks.md,
        "Both legs in one call")."""
        if dense is None or not sparse.indices:
            return super().query_legs(collection, dense, sparse, flt, limit)
        filter = self._filter(flt)
        batch = self._q.QueryBatchRequest(
            [self._dense_request(dense, filter, limit), self._sparse_request(sparse, filter, limit)]
        )
        dense_points, sparse_points = self._shard(collection).query_batch(batch)
        return self._hits(dense_points), self._sparse_hits(sparse_points)

    def count(self, collection: str, flt: IndexFilter | None = None) -> int:
        return int(self._shard(collection).count(self._q.CountRequest(exact=True, filter=self._filter(flt))))

    def ids(self, collection: str) -> Iterator[str]:
        q = self._q
        shard = self._shard(collection)
        offset = None
        while True:
            result = shard.scroll(q.ScrollRequest(offset=offset, limit=1000, with_payload=False, with_vector=False))
            points, offset = result if isinstance(result, tuple) else (result, None)
            for point in points:
                yield str(point.id)
            if offset is None:
                return

    def optimize(self) -> None:
        with self._lock:
            for shard in self._shards.values():
                shard.optimize()
                # Written down now: a rebuilt shard left unflushed was replayed from its write-ahead
                # log at the next open (100,000 notes: 230 MB, 12 s).
                shard.flush()

    def flush(self) -> None:
        with self._lock:
            for shard in self._shards.values():
                shard.flush()

    def erase(self, collection: str, ids: Iterable[str]) -> None:
        """Overwrite, delete, then vacuum the shard, so no segment keeps the points' vectors.

        A point in a mutable segment is overwritten in place (zero payload, a unit vector) before
        the delete; one in an optimized segment stays in that segment's files until the segment is
        rewritten, so the shard is reopened with a vacuum threshold of any deleted point, optimized
        (the segments holding deletions are rebuilt), and reopened with Qdrant's defaults. Searches
        wait meanwhile (the store's lock); docs/benchmarks.md has the time at scale.
        """
        points = [str(i) for i in ids]
        if not points:
            return
        q = self._q
        blank = [0.0] * self.dimension
        blank[0] = 1.0
        with self._lock:
            shard = self._shard(collection)
            present = [str(r.id) for r in shard.retrieve(list(points), False, False)]
            if present:
                shard.update(q.UpdateOperation.upsert_points([q.Point(p, {DENSE: blank}, {}) for p in present]))
            shard.update(q.UpdateOperation.delete_points(list(points)))
            shard.flush()
            shard.close()
            path = str(self._path(collection))
            shard = q.EdgeShard.load(path, self._config(deleted_threshold=1e-9, vacuum_min_vector_number=1))
            shard.optimize()
            shard.flush()
            shard.close()
            self._shards[collection] = q.EdgeShard.load(path, self._config(**VACUUM_DEFAULTS))

    def close(self) -> None:
        with self._lock:
            try:
                for shard in self._shards.values():
                    try:
                        shard.flush()
                    finally:
                        shard.close()
            finally:
                self._shards.clear()
                if self._claimed:
                    self._claimed = False
                    folder_lock.release(self.root)


# --- qdrant-client ----------------------------------------------------------------------


class ClientStore(VectorStore):
    """A Qdrant server (``url``) or qdrant-client's local mode (``path`` / ``:memory:``)."""

    def __init__(
        self,
        embedding_model: str,
        dimension: int,
        *,
        url: str | None = None,
        path: str | None = None,
        api_key: str | None = None,
        prefix: str = "",
    ) -> None:
        super().__init__(embedding_model, dimension)
        from qdrant_client import QdrantClient, models

        self._m = models
        self.prefix = prefix
        try:
            if url == ":memory:":
                self._client = QdrantClient(location=":memory:")
            elif url:
                self._client = QdrantClient(url=url, api_key=api_key or None, timeout=10)
            else:
                self._client = QdrantClient(path=path)
        except RuntimeError as exc:
            if "already accessed" in str(exc):
                raise IndexLocked(
                    f"the local Qdrant folder {path!r} is open in another process; stop it first."
                ) from None
            raise IndexUnavailable(f"cannot open Qdrant: {exc}") from exc
        self._ready: set[str] = set()

    def _name(self, collection: str) -> str:
        return f"{self.prefix}{collection}"

    def ensure_collection(self, name: str) -> None:
        if name in self._ready:
            return
        m = self._m
        full = self._name(name)
        try:
            with self._lock:
                if self._client.collection_exists(full):
                    meta = self._client.get_collection(full).config.metadata or {}
                    if "embedding_model" not in meta:
                        raise IndexMismatch(
                            f"Qdrant collection {full!r} carries no record of its embedding model; "
                            "drop it or run `manage.py amem_reindex`."
                        )
                    IndexMeta(
                        meta["embedding_model"],
                        int(meta["dimension"]),
                        meta.get("lexical", UNRECORDED_LEXICAL),
                        meta.get("payload", UNRECORDED_PAYLOAD),
                    ).check(self.embedding_model, self.dimension, full)
                else:
                    self._client.create_collection(
                        full,
                        vectors_config={DENSE: m.VectorParams(size=self.dimension, distance=m.Distance.COSINE)},
                        sparse_vectors_config={SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
                        metadata=self.meta().as_dict(),
                    )
                    if not self._is_local():
                        for key in KEYWORD_FIELDS:
                            self._client.create_payload_index(full, key, m.PayloadSchemaType.KEYWORD)
        except IndexMismatch:
            raise
        except Exception as exc:
            raise IndexUnavailable(f"Qdrant is unavailable: {exc}") from exc
        self._ready.add(name)

    def _is_local(self) -> bool:
        # Local mode has no payload indexes (it warns that they have no effect).
        return type(self._client._client).__name__ == "QdrantLocal"

    def drop_collection(self, name: str) -> None:
        with self._lock:
            self._client.delete_collection(self._name(name))
        self._ready.discard(name)

    def collections(self) -> list[str]:
        names = [c.name for c in self._client.get_collections().collections]
        return sorted(n[len(self.prefix) :] for n in names if n.startswith(self.prefix))

    def _filter(self, flt: IndexFilter | None) -> Any:
        if flt is None or not flt.must:
            return None
        return self._m.Filter(must=[self._cond(c) for c in flt.must])

    def _cond(self, cond: Condition) -> Any:
        m = self._m
        if isinstance(cond, Eq):
            return m.FieldCondition(key=cond.key, match=m.MatchValue(value=stored_value(cond.key, cond.value)))
        if isinstance(cond, In):
            return m.FieldCondition(
                key=cond.key, match=m.MatchAny(any=[stored_value(cond.key, v) for v in cond.values])
            )
        if isinstance(cond, Empty):
            return m.IsEmptyCondition(is_empty=m.PayloadField(key=cond.key))
        if isinstance(cond, AnyOf):
            return m.Filter(should=[self._cond(c) for c in cond.conditions])
        if isinstance(cond, Not):
            return m.Filter(must_not=[self._cond(cond.condition)])
        raise TypeError(f"unknown condition {cond!r}")

    def _sparse(self, vector: SparseVector) -> Any:
        return self._m.SparseVector(indices=list(vector.indices), values=[float(v) for v in vector.values])

    def _call(self, fn, *args, **kwargs):
        try:
            with self._lock:
                return fn(*args, **kwargs)
        except (IndexMismatch, IndexLocked):
            raise
        except Exception as exc:
            raise IndexUnavailable(f"Qdrant request failed: {exc}") from exc

    def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        self.ensure_collection(collection)
        m = self._m
        batch = [
            m.PointStruct(
                id=p.id,
                vector={DENSE: np.asarray(p.dense, dtype=np.float32).tolist(), SPARSE: self._sparse(p.sparse)},
                payload=stored_payload(p.payload),
            )
            for p in points
        ]
        self._call(self._client.upsert, self._name(collection), points=batch, wait=True)

    def delete(self, collection: str, ids: Iterable[str]) -> None:
        points: list[int | str | UUID] = list(ids)
        if points:
            self.ensure_collection(collection)
            self._call(
                self._client.delete,
                self._name(collection),
                points_selector=self._m.PointIdsList(points=points),
                wait=True,
            )

    def _query(self, collection: str, **kwargs: Any) -> list[Hit]:
        self.ensure_collection(collection)
        result = self._call(self._client.query_points, self._name(collection), with_payload=False, **kwargs)
        return [Hit(str(p.id), float(p.score)) for p in result.points]

    def query_dense(self, collection: str, vector: np.ndarray, flt: IndexFilter, limit: int) -> list[Hit]:
        return self._query(
            collection,
            query=np.asarray(vector, dtype=np.float32).tolist(),
            using=DENSE,
            query_filter=self._filter(flt),
            limit=limit,
        )

    def query_sparse(self, collection: str, vector: SparseVector, flt: IndexFilter, limit: int) -> list[Hit]:
        if not vector.indices:
            return []
        hits = self._query(
            collection, query=self._sparse(vector), using=SPARSE, query_filter=self._filter(flt), limit=limit
        )
        return [h for h in hits if h.score > 0]

    def count(self, collection: str, flt: IndexFilter | None = None) -> int:
        self.ensure_collection(collection)
        result = self._call(self._client.count, self._name(collection), count_filter=self._filter(flt), exact=True)
        return int(result.count)

    def ids(self, collection: str) -> Iterator[str]:
        self.ensure_collection(collection)
        offset = None
        while True:
            points, offset = self._call(
                self._client.scroll,
                self._name(collection),
                limit=1000,
                offset=offset,
                with_payload=False,
                with_vectors=False,
            )
            for point in points:
                yield str(point.id)
            if offset is None:
                return

    def close(self) -> None:
        self._client.close()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine of two vectors (embeddings are normalised, but be safe with stored ones)."""
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 or nb == 0 or a.shape != b.shape:
        return 0.0
    return float(np.dot(a, b) / (na * nb))
