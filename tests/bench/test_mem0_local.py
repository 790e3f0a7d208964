"""The in-process side-by-side benchmark's line protocol with mem0's driver (bench/mem0_local.py)."""

from __future__ import annotations

import sys

import pytest

from bench import mem0_local

# A driver that answers as bench/mem0_local_driver.py does, with mem0's own chatter in between,
# and stops at the command "stop".
FAKE_DRIVER = """
import json, sys
config = json.loads(sys.stdin.readline())
print("fastembed not installed - BM25 keyword search disabled.", flush=True)
print("ANSWER " + json.dumps({"ready": config["workdir"]}), flush=True)
for line in sys.stdin:
    command = json.loads(line)
    if command["op"] == "stop":
        sys.exit(3)
    print("a log line from mem0", flush=True)
    print("ANSWER " + json.dumps({"echo": command["queries"]}), flush=True)
"""


@pytest.fixture
def fake_driver(tmp_path, monkeypatch):
    script = tmp_path / "driver.py"
    script.write_text(FAKE_DRIVER)
    monkeypatch.setattr(mem0_local, "DRIVER", script)
    monkeypatch.setattr(mem0_local.mem0_client, "python", lambda: sys.executable)
    return tmp_path


def test_answers_are_read_past_mems_own_lines_and_a_stopped_driver_is_an_error(fake_driver):
    mem0 = mem0_local.Mem0Process(fake_driver / "mem0", "http://embed", "http://llm")
    try:
        assert mem0.ask({"op": "search", "queries": ["q1", "q2"]}) == {"echo": ["q1", "q2"]}
        with pytest.raises(RuntimeError, match=r"mem0's driver stopped \(exit 3\)"):
            mem0.ask({"op": "stop"})
    finally:
        mem0.close()
