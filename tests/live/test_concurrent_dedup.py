"""L1 dedup under concurrency: concurrent identical writes store one note.

Through the API of a real gunicorn server (8 threads) on SQLite and PostgreSQL: the losing
writers are answered "duplicate" with the winner's id (note_unique_active_write_key).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from testsupport.texts import unrelated_words

pytestmark = pytest.mark.slow

ROUNDS, WRITERS = 20, 8


def round_text(round_no: int) -> str:
    # Unrelated words per round: rounds must not resemble each other (L2 would fold one into another).
    return f"Round {round_no} lists {unrelated_words(10**6 + round_no, 10)}."


def _write(server, text: str):
    return server.call("POST", "/api/v1/memories", {"text": text})


def test_eight_concurrent_identical_writes_store_one_note_twenty_times(server):
    with ThreadPoolExecutor(WRITERS) as pool:
        for round_no in range(ROUNDS):
            text = round_text(round_no)
            answers = list(pool.map(lambda _, t=text: _write(server, t), range(WRITERS)))
            assert [a.status for a in answers] == [201] * WRITERS, [a.body for a in answers]
            outcomes = sorted(a.body["outcome"] for a in answers)
            ids = {a.body["id"] for a in answers}
            assert len(ids) == 1, f"round {round_no}: {len(ids)} notes for one text: {outcomes}"
            # One writer stored it (created, or flagged if it resembles an earlier round), the rest
            # were told it is a duplicate of that note.
            assert outcomes.count("duplicate") == WRITERS - 1, outcomes
            winner = next(a.body for a in answers if a.body["outcome"] != "duplicate")
            assert winner["outcome"] in ("created", "flagged")
            assert all(a.body["similar_to"] == winner["id"] for a in answers if a.body["outcome"] == "duplicate")
    assert server.call("GET", "/api/v1/memories/count").body["count"] == ROUNDS


def test_the_same_text_about_different_subjects_is_not_a_duplicate(server):
    text = "Likes long walks along the river before breakfast on Sundays."
    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(
                lambda s: server.call("POST", "/api/v1/memories", {"text": text, "subjects": [s]}),
                ["ann", "ben", "ann", "ben"],
            )
        )
    assert all(a.status == 201 for a in answers), [a.body for a in answers]
    by_subject = {}
    for subject, a in zip(["ann", "ben", "ann", "ben"], answers, strict=True):
        by_subject.setdefault(subject, set()).add(a.body["id"])
    assert [len(v) for v in by_subject.values()] == [1, 1]
    assert by_subject["ann"] != by_subject["ben"]
