"""The old review app (before issue #12): one click per card, measured like the new one.

It drives the old templates, so it runs in an export of the commit before the change, not here:

    git archive 3ce269f | tar -x -C /tmp/before
    cp bench/review/test_measure_before.py /tmp/before/tests/review/browser/
    cd /tmp/before && python -m pytest tests/review/browser/test_measure_before.py -q -s -p no:cacheprovider

Each test prints "MEASURE <name> actions=<n> seconds=<s>" (docs/review.md, "Measured").
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
TOPICS = [
    "tea",
    "bicycle",
    "garden",
    "piano",
    "train",
    "report",
    "cat",
    "laptop",
    "kitchen",
    "music",
    "holiday",
    "dentist",
    "budget",
    "printer",
    "running",
    "books",
    "coffee",
    "meeting",
    "camera",
    "plants",
]


def test_before_low_quality_40(logged_in, live_server, alice, make_note):
    page = logged_in
    for i in range(40):
        make_note(
            alice,
            f"Alice mentioned {TOPICS[i % 20]} in passing, detail {i}.",
            low_quality=True,
            low_quality_reasons=["too_vague"],
        )
    page.goto(f"{live_server.url}/review/queues/quality/")
    started = time.perf_counter()
    for i in range(40):
        page.locator("#queue .card:not(.done) button:has-text('Retire')").first.click()
        expect(page.locator("#queue .card.done")).to_have_count(i + 1, timeout=30_000)
    print(f"MEASURE before_low_quality_40_per_card_clicks actions=40 seconds={time.perf_counter() - started:.2f}")


def test_before_merge_15(logged_in, live_server, alice, make_note):
    page = logged_in
    for i in range(15):
        old = make_note(alice, f"Alice likes {TOPICS[i]} and talks about {TOPICS[i]} often.")
        make_note(
            alice,
            f"Alice likes {TOPICS[i]} and talks about {TOPICS[i]} often. She mentioned it on day {i}.",
            pending_merge=True,
            merge_candidate=old,
            merge_similarity=0.8 + i / 100,
        )
    page.goto(f"{live_server.url}/review/queues/merges/")
    started = time.perf_counter()
    for i in range(15):
        page.locator("#queue .card:not(.done) button:has-text('Merge')").first.click()
        expect(page.locator("#queue .card.done")).to_have_count(i + 1, timeout=30_000)
    print(f"MEASURE before_merge_15_per_card_clicks actions=15 seconds={time.perf_counter() - started:.2f}")
