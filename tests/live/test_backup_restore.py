"""A backup taken under a write burst restores to a server where every acknowledged note is found.

Clients write to a running server; ``manage.py amem_backup`` runs meanwhile (online). Every write
acknowledged (201) before the backup started must come back: the backup is restored into a
second installation with ``amem_restore`` (which rebuilds the index), that server is started,
and each such note is read by id and found by a search for its unique words.
"""

from __future__ import annotations

import json
import threading
import uuid

import pytest

from tests.live.conftest import BACKENDS, start_server
from testsupport.live_server import LiveServer

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_backup_under_writes_restores_every_acknowledged_note(tmp_path_factory, backend):
    source = start_server(tmp_path_factory, backend)
    target: LiveServer | None = None
    try:
        acknowledged: dict[str, str] = {}  # note id -> its unique word
        lock = threading.Lock()
        stop = threading.Event()

        def client() -> None:
            while not stop.is_set():
                word = f"zq{uuid.uuid4().hex[:10]}"
                answer = source.call("POST", "/api/v1/memories/episodic", {"text": f"backup drill note {word}"})
                if answer.status == 201:
                    with lock:
                        acknowledged[answer.body["id"]] = word

        writers = [threading.Thread(target=client) for _ in range(3)]
        for t in writers:
            t.start()
        while len(acknowledged) < 15:
            stop.wait(0.1)
        with lock:
            before = dict(acknowledged)  # acknowledged before the backup began: must all come back
        folder = source.data_dir.parent / f"backup-{uuid.uuid4().hex[:6]}"
        out = source.manage("amem_backup", str(folder))
        stop.set()
        for t in writers:
            t.join(60)
        assert "backup of" in out and json.loads((folder / "manifest.json").read_text())["database"]

        target = LiveServer(tmp_path_factory.mktemp(f"restored-{backend}"), backend=backend)
        target.prepare()
        target.manage("amem_restore", str(folder), "--yes")
        target.start()
        key = source.key  # the agent and its key came back with the database
        for note_id, word in before.items():
            assert target.call("GET", f"/api/v1/memories/{note_id}", key=key).status == 200, note_id
            found = target.call("POST", "/api/v1/memories/search", {"query": word, "limit": 3}, key=key)
            assert note_id in [r["id"] for r in found.body["results"]], word
    finally:
        stop.set()
        source.drop()
        if target is not None:
            target.drop()
