"""Erasure against a running server: afterwards no file under the data dir holds the text.

A note erased over the API, a subject and a whole agent erased with ``manage.py amem_erase``
while the server runs (the command cannot open the index: the server's outbox deletes the
points). Then every file under the data dir is read byte by byte: the SQLite database, its
write-ahead log, the index's segments and its own log (on PostgreSQL the data dir holds the
index; the database rows are checked by tests/engine/test_erasure.py on both).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from testsupport.live_server import LiveServer

pytestmark = pytest.mark.slow


def files_holding(root: Path, needle: str) -> list[str]:
    data = needle.encode()
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and data in p.read_bytes()]


def agent_key(server: LiveServer, agent: str) -> str:
    out = server.manage("amem_agent", "create", agent)
    return next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("api key: "))


def test_no_file_under_the_data_dir_holds_erased_text(server: LiveServer):
    tag = uuid.uuid4().hex[:8]
    note_text, subject_text, agent_text = f"zqnote{tag}", f"zqsubj{tag}", f"zqagent{tag}"
    person, agent = f"person{tag}", f"eve{tag}"
    eve = agent_key(server, agent)

    def write(text: str, key: str = "", **extra) -> str:
        answer = server.call("POST", "/api/v1/memories", {"text": text, **extra}, key=key)
        assert answer.status == 201, answer.body
        return answer.body["id"]

    note = write(f"My locker code is {note_text} at the city gym")
    write(f"{person} told me the door code is {subject_text} for the garage", subjects=[person])
    write(f"The plan for the launch is {agent_text}, keep it between us", key=eve)
    write("The weekly team lunch is on Thursdays at noon")  # stays
    server.wait_indexed()
    for text in (note_text, subject_text, agent_text):
        found = server.call("POST", "/api/v1/memories/search", {"query": text}, key=eve if "agent" in text else "")
        assert text in found.body["results"][0]["content"]  # written and found: the checks below can fail

    if server.backend == "sqlite":
        assert files_holding(server.data_dir, note_text)  # the text is on disk before: the check can fail
    assert server.call("DELETE", f"/api/v1/memories/{note}?purge=true").status == 200
    server.manage("amem_erase", "--subject", person, "--yes")
    server.manage("amem_erase", "--agent", agent, "--yes")
    server.wait_indexed()  # the server's outbox has taken the erased points out of the index

    results = server.call("POST", "/api/v1/memories/search", {"query": note_text}).body["results"]
    assert note not in [r["id"] for r in results]
    for needle in (note_text, subject_text, agent_text, person):
        assert files_holding(server.data_dir, needle) == [], needle
    assert server.call("POST", "/api/v1/memories/search", {"query": "team lunch Thursdays"}).body["results"]
