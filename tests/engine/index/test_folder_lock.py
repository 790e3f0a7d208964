"""engine/index/folder_lock.py: another process cannot take an index folder its owner holds, even
while the owner reloads a shard (the gap an erasure's rewrite opened)."""

from __future__ import annotations

import subprocess
import sys

from engine.index import folder_lock

TRY = (
    "import sys\n"
    "from engine.index import folder_lock\n"
    "from engine.errors import IndexLocked\n"
    "try:\n"
    "    folder_lock.claim(__import__('pathlib').Path(sys.argv[1]))\n"
    "except IndexLocked:\n"
    "    print('locked')\n"
    "else:\n"
    "    print('claimed')\n"
)


def other_process_claims(root) -> str:
    return subprocess.run(
        [sys.executable, "-c", TRY, str(root)], capture_output=True, text=True, timeout=60, check=True
    ).stdout.strip()


def test_another_process_is_refused_until_the_owner_releases(tmp_path):
    folder_lock.claim(tmp_path)
    folder_lock.claim(tmp_path)  # a second store in this process shares it
    try:
        assert other_process_claims(tmp_path) == "locked"
        folder_lock.release(tmp_path)
        assert other_process_claims(tmp_path) == "locked"  # still one store open here
    finally:
        folder_lock.release(tmp_path)
    assert other_process_claims(tmp_path) == "claimed"


def test_the_edge_store_holds_it_from_the_first_shard_to_close(tmp_path):
    from engine.index.store import EdgeStore

    store = EdgeStore(tmp_path, "test-model", 8)
    store.ensure_collection("amem_notes")
    assert other_process_claims(tmp_path) == "locked"
    store.close()
    assert other_process_claims(tmp_path) == "claimed"
