"""The index process's side of the socket: who may ask, what crosses it, a restart under a client.

The VectorStore contract itself runs on a served store in test_store.py (the ``served`` backend).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from engine.errors import IndexMismatch, IndexUnavailable
from engine.index.served import IndexServer, ServedStore
from engine.index.store import IndexFilter, IndexPoint, SparseVector

KEY = b"k" * 32


def serve(tmp_path) -> tuple[IndexServer, threading.Thread]:
    server = IndexServer(tmp_path / "q", str(tmp_path / "index.sock"), KEY)
    server.bind()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


def stop(server: IndexServer, thread: threading.Thread) -> None:
    server.stop()
    thread.join(10)
    assert not thread.is_alive()


def one_point(store: ServedStore) -> str:
    vector = np.zeros(8, dtype=np.float32)
    vector[0] = 1.0
    payload = {"agent_id": "a", "owner": "a", "readers": ["a"], "subjects": [], "status": "active"}
    store.upsert("notes", [IndexPoint("00000000-0000-0000-0000-000000000001", vector, SparseVector((), ()), payload)])
    return "00000000-0000-0000-0000-000000000001"


def test_a_process_with_another_model_is_refused_naming_both(tmp_path):
    server, thread = serve(tmp_path)
    try:
        ServedStore(server.address, KEY, "model-a", 8).ensure_collection("notes")
        with pytest.raises(IndexMismatch, match=r"serves model-a .* embeds with model-b"):
            ServedStore(server.address, KEY, "model-b", 8).collections()
    finally:
        stop(server, thread)


def test_a_wrong_key_or_no_index_process_is_a_clear_unavailable(tmp_path, monkeypatch):
    server, thread = serve(tmp_path)
    try:
        with pytest.raises(IndexUnavailable, match="cannot connect to the index process"):
            ServedStore(server.address, b"x" * 32, "model-a", 8).collections()
    finally:
        stop(server, thread)
    monkeypatch.setattr("engine.index.served.CONNECT_WAIT_S", 0.2)
    with pytest.raises(IndexUnavailable, match="does not answer on"):
        ServedStore(str(tmp_path / "none.sock"), KEY, "model-a", 8).collections()


def test_a_client_keeps_working_across_a_restart_of_the_index_process(tmp_path):
    server, thread = serve(tmp_path)
    client = ServedStore(server.address, KEY, "model-a", 8)
    client.ensure_collection("notes")
    point = one_point(client)
    stop(server, thread)  # writes the shard down and releases the folder

    server, thread = serve(tmp_path)
    try:
        query = np.zeros(8, dtype=np.float32)
        query[0] = 1.0
        # The first call finds its old connection broken and asks again on a new one.
        assert [h.id for h in client.query_dense("notes", query, IndexFilter(()), 5)] == [point]
    finally:
        client.close()
        stop(server, thread)


def test_only_the_stores_calls_are_answered(tmp_path):
    server, thread = serve(tmp_path)
    client = ServedStore(server.address, KEY, "model-a", 8)
    try:
        client.ensure_collection("notes")
        with pytest.raises(IndexUnavailable, match="does not answer 'close'"):
            client._call("close")
        assert client.collections() == ["notes"]
    finally:
        client.close()
        stop(server, thread)
