"""8 × 125 distinct concurrent writes → exactly 1,000 notes, each found by its own words."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from testsupport.texts import unrelated_words

pytestmark = pytest.mark.slow

WRITERS, PER_WRITER = 8, 125


def text_for(writer: int, i: int) -> str:
    # Unrelated words, so no two texts are close enough for L2 to fold one into another, and a
    # serial token per note (zq…k) that a search finds it by.
    return f"Note zq{writer}x{i:03d}k: {unrelated_words(writer * 1000 + i, 8)}."


def test_a_thousand_distinct_concurrent_writes_are_all_stored_and_findable(server):
    def write_all(writer: int) -> list[str]:
        ids = []
        for i in range(PER_WRITER):
            answer = server.call("POST", "/api/v1/memories", {"text": text_for(writer, i)})
            assert answer.status == 201, answer.body
            # stored either way: "conflict" is a new note with a conflict raised (engine/reading/contradiction_rules.py)
            assert answer.body["outcome"] in ("created", "flagged", "conflict"), answer.body
            ids.append(answer.body["id"])
        return ids

    with ThreadPoolExecutor(WRITERS) as pool:
        written = {
            (w, i): note_id
            for w, ids in zip(range(WRITERS), pool.map(write_all, range(WRITERS)), strict=True)
            for i, note_id in enumerate(ids)
        }
    assert len(set(written.values())) == WRITERS * PER_WRITER
    assert server.call("GET", "/api/v1/memories/count").body["count"] == WRITERS * PER_WRITER

    server.wait_indexed()

    def found(item) -> bool:
        (w, i), note_id = item
        # Its own words: both legs (dense, BM25) rank it first, whatever the heat of other notes.
        answer = server.call("POST", "/api/v1/memories/search", {"query": text_for(w, i), "limit": 5})
        return note_id in [hit["id"] for hit in answer.body["results"]]

    with ThreadPoolExecutor(4) as pool:
        missing = [k for k, ok in zip(written, pool.map(found, written.items()), strict=True) if not ok]
    assert missing == []
