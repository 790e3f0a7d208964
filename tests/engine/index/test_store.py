"""The VectorStore on both backends: filters, BM25, hybrid fusion, model records, locking."""

from __future__ import annotations

import threading
import uuid

import numpy as np
import pytest

from engine.errors import IndexMismatch
from engine.index.served import IndexServer, ServedStore
from engine.index.store import (
    ACTIVE,
    RETIRED,
    AnyOf,
    ClientStore,
    EdgeStore,
    Empty,
    Eq,
    In,
    IndexFilter,
    IndexMeta,
    IndexPoint,
    Not,
    bm25_document_vector,
    bm25_query_vector,
)
from engine.index.tokenize import tokenize

DIM = 384
C = "notes"


def unit(*hot: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    for i in hot:
        v[i] = 1.0
    return v / np.linalg.norm(v)


def point(text: str, vector: np.ndarray, **payload) -> IndexPoint:
    sparse = bm25_document_vector(tokenize(text), k1=1.5, b=0.75, avg_len=10)
    base = {"agent_id": "a", "owner": "a", "readers": ["a"], "subjects": [], "status": ACTIVE}
    return IndexPoint(str(uuid.uuid4()), vector, sparse, {**base, **payload})


@pytest.fixture(params=["edge", "client", "served"])
def vs(request, tmp_path):
    server = None
    if request.param == "edge":
        s = EdgeStore(tmp_path / "q", "test-model", DIM)
    elif request.param == "client":
        s = ClientStore("test-model", DIM, url=":memory:")
    else:  # an index process's store, asked over its socket (here a thread of this process)
        server = IndexServer(tmp_path / "q", str(tmp_path / "index.sock"), b"k" * 32)
        server.bind()
        serving = threading.Thread(target=server.serve_forever, daemon=True)
        serving.start()
        s = ServedStore(server.address, b"k" * 32, "test-model", DIM)
    s.ensure_collection(C)
    yield s
    s.close()
    if server is not None:
        server.stop()
        serving.join(10)


def test_dense_query_ranks_by_cosine_and_applies_the_filter(vs):
    near = point("near", unit(0))
    mid = point("mid", unit(0, 1))
    foreign = point("foreign", unit(0), agent_id="b", owner="b")
    vs.upsert(C, [near, mid, foreign])
    hits = vs.query_dense(C, unit(0), IndexFilter((Eq("agent_id", "a"),)), 10)
    assert [h.id for h in hits] == [near.id, mid.id]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[1].score == pytest.approx(0.7071, abs=1e-3)


def test_list_payloads_match_any_and_empty_lists(vs):
    alex = point("alex", unit(0), subjects=["alex"])
    sam = point("sam", unit(0), subjects=["sam"])
    world = point("world", unit(0), subjects=[])
    vs.upsert(C, [alex, sam, world])
    scoped = IndexFilter((AnyOf((Eq("subjects", "alex"), Empty("subjects"))),))
    assert {h.id for h in vs.query_dense(C, unit(0), scoped, 10)} == {alex.id, world.id}
    assert vs.count(C, IndexFilter((In("subjects", ("alex", "sam")),))) == 2
    assert vs.count(C, IndexFilter((Not(Eq("subjects", "sam")),))) == 2


def test_status_keyword_filters_out_retired_points(vs):
    live, retired = point("live", unit(0)), point("gone", unit(0), status=RETIRED)
    vs.upsert(C, [live, retired])
    assert [h.id for h in vs.query_dense(C, unit(0), IndexFilter((Eq("status", ACTIVE),)), 10)] == [live.id]


def test_bm25_ranks_the_matching_document_and_drops_zero_scores(vs):
    cat = point("the cat sat on the mat", unit(0))
    dog = point("the dog ran", unit(1))
    vs.upsert(C, [cat, dog])
    hits = vs.query_sparse(C, bm25_query_vector(tokenize("cat")), IndexFilter(), 10)
    assert [h.id for h in hits] == [cat.id]


def test_bm25_prefers_more_occurrences_and_rarer_terms(vs):
    triple = point("apple apple apple", unit(0))
    mixed = point("apple banana", unit(1))
    cherry = point("cherry", unit(2))
    vs.upsert(C, [triple, mixed, cherry])
    hits = vs.query_sparse(C, bm25_query_vector(tokenize("apple")), IndexFilter(), 10)
    assert [h.id for h in hits] == [triple.id, mixed.id]
    assert hits[0].score >= hits[1].score
    rare = vs.query_sparse(C, bm25_query_vector(tokenize("apple banana")), IndexFilter(), 10)
    assert rare[0].id == mixed.id  # banana is rarer than apple, so it outweighs


def test_bm25_finds_chinese_words_that_segmentation_hides_inside_longer_ones(vs):
    # jieba cuts 王小明 as one name and 大吵了一架 as 大吵/一架: search-mode words gave the
    # queries 小明 and 吵架 no term in common with these notes.
    name = point("王小明是我的同学", unit(0))
    quarrel = point("我和朋友大吵了一架", unit(1))
    hike = point("我们一起去爬山", unit(2))
    vs.upsert(C, [name, quarrel, hike])
    assert vs.query_sparse(C, bm25_query_vector(tokenize("小明")), IndexFilter(), 10)[0].id == name.id
    assert vs.query_sparse(C, bm25_query_vector(tokenize("吵架")), IndexFilter(), 10)[0].id == quarrel.id


def test_bm25_weighs_a_term_the_query_repeats(vs):
    # A conversation names its topic several times and other things once; with every distinct
    # query term at weight 1 these two notes tied.
    dog, cat = point("dog", unit(0)), point("cat", unit(1))
    vs.upsert(C, [dog, cat])
    hits = vs.query_sparse(C, bm25_query_vector(tokenize("dog cat dog dog")), IndexFilter(), 10)
    assert [h.id for h in hits] == [dog.id, cat.id]
    assert hits[0].score > hits[1].score * 1.2


def test_a_query_term_weight_saturates():
    once, twice, many = (bm25_query_vector(["dog"] * n).values[0] for n in (1, 2, 50))
    assert once == 1.0 and once < twice < many < 2.0


def test_an_empty_sparse_query_returns_nothing(vs):
    vs.upsert(C, [point("anything at all", unit(0))])
    assert vs.query_sparse(C, bm25_query_vector([]), IndexFilter(), 10) == []


def test_both_legs_in_one_call_answer_as_the_two_queries(vs):
    cat, dog = point("the cat sat", unit(0)), point("the dog ran", unit(1))
    foreign = point("the cat too", unit(0), agent_id="b")
    vs.upsert(C, [cat, dog, foreign])
    mine, words = IndexFilter((Eq("agent_id", "a"),)), bm25_query_vector(tokenize("cat"))
    legs = vs.query_legs(C, unit(0), words, mine, 10)
    assert legs == (vs.query_dense(C, unit(0), mine, 10), vs.query_sparse(C, words, mine, 10))
    assert [h.id for h in legs[1]] == [cat.id]
    assert vs.query_legs(C, None, words, mine, 10) == ([], legs[1])  # no dense vote: no dense leg
    assert vs.query_legs(C, unit(1), bm25_query_vector([]), mine, 10) == (vs.query_dense(C, unit(1), mine, 10), [])


def test_both_legs_keep_inside_the_filter(vs):
    lexical = point("qdrant shard folder", unit(5))
    dense = point("unrelated words", unit(0))
    foreign = point("qdrant qdrant", unit(0), agent_id="b")
    vs.upsert(C, [lexical, dense, foreign])
    only_a = IndexFilter((Eq("agent_id", "a"),))
    ids = {h.id for h in vs.query_dense(C, unit(0), only_a, 10)}
    ids |= {h.id for h in vs.query_sparse(C, bm25_query_vector(tokenize("qdrant")), only_a, 10)}
    assert {lexical.id, dense.id} <= ids
    assert foreign.id not in ids


def test_upsert_replaces_and_delete_removes(vs):
    p = point("first version", unit(0))
    vs.upsert(C, [p])
    p.payload["owner"] = "z"
    vs.upsert(C, [p])
    assert vs.count(C) == 1
    assert vs.count(C, IndexFilter((Eq("owner", "z"),))) == 1
    assert list(vs.ids(C)) == [p.id]
    vs.delete(C, [p.id])
    assert vs.count(C) == 0


def test_collections_are_listed_and_dropped(vs):
    vs.ensure_collection("other")
    assert {"notes", "other"} <= set(vs.collections())
    vs.drop_collection("other")
    assert "other" not in vs.collections()


def test_reopening_an_edge_index_with_another_model_names_the_fix(tmp_path):
    first = EdgeStore(tmp_path / "q", "model-a", DIM)
    first.ensure_collection(C)
    first.close()
    with pytest.raises(IndexMismatch, match="amem_reindex --model model-b"):
        EdgeStore(tmp_path / "q", "model-b", DIM).ensure_collection(C)
    with pytest.raises(IndexMismatch, match="64 dims"):
        EdgeStore(tmp_path / "q", "model-a", 64).ensure_collection(C)


def test_reopening_a_server_collection_with_another_model_names_the_fix(tmp_path):
    first = ClientStore("model-a", DIM, path=str(tmp_path / "local"))
    first.ensure_collection(C)
    first.close()
    second = ClientStore("model-b", DIM, path=str(tmp_path / "local"))
    with pytest.raises(IndexMismatch, match="model-a"):
        second.ensure_collection(C)
    second.close()


def test_an_edge_index_from_older_bm25_rules_asks_for_a_rebuild(tmp_path, monkeypatch):
    # An index from before stemming holds "paintings" where queries now look up "paint".
    old = EdgeStore(tmp_path / "q", "m", DIM)
    monkeypatch.setattr(old, "meta", lambda: IndexMeta("m", DIM))  # as written before the record existed
    old.ensure_collection(C)
    old.close()
    with pytest.raises(IndexMismatch, match="amem_reindex --recreate"):
        EdgeStore(tmp_path / "q", "m", DIM).ensure_collection(C)


def test_an_index_from_search_mode_chinese_terms_asks_for_a_rebuild(tmp_path, monkeypatch):
    # "snowball-en-1" indexed Han text as search-mode words, without characters and bigrams:
    # its notes would not match the terms queries look up now.
    old = EdgeStore(tmp_path / "q", "m", DIM)
    monkeypatch.setattr(old, "meta", lambda: IndexMeta("m", DIM, "snowball-en-1"))
    old.ensure_collection(C)
    old.close()
    with pytest.raises(IndexMismatch, match="amem_reindex --recreate"):
        EdgeStore(tmp_path / "q", "m", DIM).ensure_collection(C)


def test_a_server_collection_from_older_bm25_rules_asks_for_a_rebuild(tmp_path, monkeypatch):
    old = ClientStore("m", DIM, path=str(tmp_path / "local"))
    monkeypatch.setattr(old, "meta", lambda: IndexMeta("m", DIM, "words-1"))
    old.ensure_collection(C)
    old.close()
    again = ClientStore("m", DIM, path=str(tmp_path / "local"))
    with pytest.raises(IndexMismatch, match="words-1"):
        again.ensure_collection(C)
    again.close()


def test_an_edge_index_survives_reopening(tmp_path):
    s = EdgeStore(tmp_path / "q", "m", DIM)
    p = point("persisted note", unit(3))
    s.upsert(C, [p])
    s.close()
    again = EdgeStore(tmp_path / "q", "m", DIM)
    assert [h.id for h in again.query_dense(C, unit(3), IndexFilter(), 1)] == [p.id]
    again.close()


def _dense_config(shard_dir) -> dict:
    import json

    return json.loads((shard_dir / "edge_config.json").read_text())["vectors"]["dense"]


def test_an_edge_index_keeps_float_vectors_on_disk_and_int8_copies_in_memory(tmp_path):
    s = EdgeStore(tmp_path / "q", "m", DIM)
    s.ensure_collection(C)
    s.close()
    dense = _dense_config(tmp_path / "q" / C)
    assert dense["memory"] == "cold"
    assert dense["quantization_config"] == {"scalar": {"type": "int8", "quantile": 0.99, "memory": "pinned"}}


def test_an_edge_index_made_with_qdrants_default_placement_takes_the_products_when_opened(tmp_path):
    import json

    import qdrant_edge as q

    from engine.index.store import META_FILE, EdgeStore

    folder = tmp_path / "q" / C
    old = q.EdgeShard.create(
        str(folder),
        q.EdgeConfig(
            vectors={"dense": q.EdgeVectorParams(size=DIM, distance=q.Distance.Cosine)},
            sparse_vectors={"sparse": q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
        ),
    )
    old.close()
    s = EdgeStore(tmp_path / "q", "m", DIM)
    (folder / META_FILE).write_text(json.dumps(s.meta().as_dict()))
    p = point("kept across the change", unit(5))
    s.upsert(C, [p])
    assert [h.id for h in s.query_dense(C, unit(5), IndexFilter(), 1)] == [p.id]
    s.close()
    assert _dense_config(folder)["memory"] == "cold"
    assert "scalar" in _dense_config(folder)["quantization_config"]


def test_a_second_process_opening_the_edge_index_gets_a_clear_error(tmp_path):
    import subprocess
    import sys

    owner = EdgeStore(tmp_path / "q", "m", DIM)
    owner.ensure_collection(C)
    script = (
        "from engine.index.store import EdgeStore\n"
        "from engine.errors import IndexLocked\n"
        f"s = EdgeStore({str(tmp_path / 'q')!r}, 'm', {DIM})\n"
        "try:\n    s.ensure_collection('notes')\nexcept IndexLocked as e:\n    print('LOCKED', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    owner.close()
    assert out.stdout.startswith("LOCKED"), out.stderr
    assert "another process" in out.stdout


def test_both_backends_implement_the_one_index_interface():
    import inspect

    from engine.index.store import ClientStore, EdgeStore, VectorStore

    assert inspect.isabstract(VectorStore)
    for backend in (EdgeStore, ClientStore):
        assert issubclass(backend, VectorStore) and not inspect.isabstract(backend)
