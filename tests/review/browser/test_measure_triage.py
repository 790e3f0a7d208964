"""Measurements and screenshots for docs/review.md. Not part of the suite's claims:
skipped unless AMEM_REVIEW_MEASURE=1, e.g.

    AMEM_REVIEW_MEASURE=1 python -m pytest tests/review/browser/test_measure_triage.py -q -s

Each measurement prints one line "MEASURE <name> actions=<n> seconds=<s>" (wall clock from the
first action until the queue shows its empty state, machine time only: no reading time).
"""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from engine.layers import core
from memories.models import JobRun, Link, LlmCall, Note, Pair

pytestmark = [
    pytest.mark.browser,
    pytest.mark.realmodel,  # the real embedder, as in production and as the old app was measured
    pytest.mark.skipif(os.environ.get("AMEM_REVIEW_MEASURE") != "1", reason="measurement run only"),
]
SHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
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


def _report(name: str, actions: int, started: float) -> None:
    print(f"MEASURE {name} actions={actions} seconds={time.perf_counter() - started:.2f}")


def _low_quality(make_note, agent, n: int) -> None:
    for i in range(n):
        make_note(
            agent,
            f"Alice mentioned {TOPICS[i % 20]} in passing, detail {i}.",
            low_quality=True,
            low_quality_reasons=["too_vague"],
        )


def _merge_pairs(make_note, agent, n: int) -> None:
    for i in range(n):
        old = make_note(agent, f"Alice likes {TOPICS[i]} and talks about {TOPICS[i]} often.")
        new = make_note(
            agent, f"Alice likes {TOPICS[i]} and talks about {TOPICS[i]} often. She mentioned it on day {i}."
        )
        Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.8 + i / 100)


def test_measure_low_quality_40_bulk(logged_in, live_server, alice, make_note):
    page = logged_in
    _low_quality(make_note, alice, 40)
    page.goto(f"{live_server.url}/review/queues/quality/")
    started = time.perf_counter()
    page.check("#select-all")  # 1 (a page holds 20 cards)
    page.click("#bulk-form button[value=retire]")  # 2: the preview, card by card
    page.locator("#bulk-dialog button.primary").click()  # 3: run it
    expect(page.locator("#page-done")).to_be_visible(timeout=60_000)
    _report("low_quality_20_bulk_mouse", 3, started)
    assert Note.objects.filter(agent_id="alice", is_active=True).count() == 20


def test_measure_low_quality_40_keyboard(logged_in, live_server, alice, make_note):
    page = logged_in
    _low_quality(make_note, alice, 40)
    page.goto(f"{live_server.url}/review/queues/quality/")
    started = time.perf_counter()
    page.keyboard.press("*")  # 1 select every card on the page
    page.keyboard.press("Shift+R")  # 2 the preview of retiring them
    page.locator("#bulk-dialog button.primary").wait_for()
    page.keyboard.press("Enter")  # 3 run it
    expect(page.locator("#page-done")).to_be_visible(timeout=60_000)
    _report("low_quality_20_bulk_keyboard", 3, started)


def test_measure_low_quality_40_one_card_at_a_time(logged_in, live_server, alice, make_note):
    """The old way (one click per card), on the new app: the machine's share of the issue's 22 clicks / 17 s."""
    page = logged_in
    _low_quality(make_note, alice, 40)
    page.goto(f"{live_server.url}/review/queues/quality/")
    started = time.perf_counter()
    for i in range(20):
        page.locator("#queue .card:not(.done) button:has-text('Retire')").first.click()
        expect(page.locator("#queue .card.done")).to_have_count(i + 1, timeout=30_000)
    expect(page.locator("#page-done")).to_be_visible()
    _report("low_quality_20_per_card_clicks", 20, started)


def test_measure_merge_15_bulk(logged_in, live_server, alice, make_note):
    page = logged_in
    _merge_pairs(make_note, alice, 15)
    page.goto(f"{live_server.url}/review/queues/merges/")
    started = time.perf_counter()
    page.check("#select-all")
    page.click("#bulk-form button[value=same]")
    page.locator("#bulk-dialog button.primary").click()
    expect(page.locator("#queue-empty")).to_be_visible(timeout=120_000)
    _report("merge_15_bulk_mouse", 3, started)
    assert Note.objects.filter(agent_id="alice", is_active=True).count() == 15


def test_measure_merge_15_keyboard_one_key_per_card(logged_in, live_server, alice, make_note):
    page = logged_in
    _merge_pairs(make_note, alice, 15)
    page.goto(f"{live_server.url}/review/queues/merges/")
    started = time.perf_counter()
    page.keyboard.press("j")
    for i in range(15):
        page.keyboard.press("s")
        expect(page.locator("#queue .card.done")).to_have_count(i + 1, timeout=30_000)
        if i < 14:
            expect(page.locator("#queue .card.current:not(.done)")).to_have_count(1)
    expect(page.locator("#queue-empty")).to_be_visible()
    _report("merge_15_keyboard_per_card", 16, started)


def _demo(make_note, alice) -> dict:
    now = timezone.now()
    notes = []
    for d in range(7):
        for i in range(d % 3 + 1):
            notes.append(
                make_note(
                    alice,
                    f"Alice noted on day {d} that the {TOPICS[d + i]} plan is on track.",
                    created_at=now - timedelta(days=d, hours=i),
                )
            )
    cat = make_note(
        alice,
        "Alice's cat is called Miso and sleeps on the piano in the afternoon sun.",
        sources=["chat-9"],
        tags=["pets", "home"],
        subjects=["alice"],
    )
    twin = make_note(
        alice,
        "Alice's cat is called Miso and sleeps on the piano in the afternoon sun. Miso is a tabby.",
        sources=["chat-12"],
    )
    Pair.objects.create(
        kind=Pair.MERGE,
        older=cat,
        newer=twin,
        similarity=0.91,
        guess="same",
        reason="the same fact said twice: the newer adds “Miso is a tabby.”",
    )
    b = make_note(alice, "Alice's cat is called Mochi and sleeps on the sofa.", sources=["chat-14"])
    Pair.objects.create(
        kind=Pair.CONFLICT,
        older=cat,
        newer=b,
        reason="may have changed (71% a change): “Miso” → “Mochi”; “on the piano” → “on the sofa”",
        likelihood=0.71,
        opened_by="rules",
    )
    home = make_note(alice, "小明住在北京，他喜欢喝绿茶。", created_at=now - timedelta(days=30))
    moved = make_note(alice, "小明住在上海，他喜欢喝绿茶。")
    Pair.objects.create(kind=Pair.CONFLICT, older=home, newer=moved, reason="[write] slot city: 小明 北京 → 上海")
    core.replace(alice, "user", "name", "Alice")
    core.replace(alice, "user", "pets", ["Miso"])
    for n in notes[:4]:
        Link.objects.create(source=cat, target=n)
    _low_quality(make_note, alice, 3)
    make_note(
        alice, "TODO tomorrow: call the plumber about the sink.", ephemeral=True, created_at=now - timedelta(days=9)
    )

    JobRun.objects.create(
        job="quality_scan",
        agent_id="alice",
        outcome="ok",
        counts={"scanned": 31, "flagged": 4},
        started_at=now - timedelta(minutes=3),
        finished_at=now - timedelta(minutes=3) + timedelta(seconds=2),
    )
    run = JobRun.objects.create(
        job="consolidation",
        agent_id="alice",
        outcome="partial",
        counts={"llm_calls": 17, "llm_failed": 11, "merged": 2},
        detail="11 of 17 model calls failed (provider_error)",
        started_at=now - timedelta(hours=5),
        finished_at=now - timedelta(hours=5) + timedelta(seconds=41),
    )
    for i in range(3):
        LlmCall.objects.create(
            role="evolution_judge",
            tier="small",
            provider="openai",
            model="gpt-x",
            outcome="provider_error",
            error="HTTP 429: rate limited",
            agent_id="alice",
            created_at=run.started_at + timedelta(seconds=5 + i),
        )
    return {"cat": cat, "twin": twin, "run": run}


PAGES = [
    ("dashboard", "/review/"),
    ("browser", "/review/agents/alice/notes/"),
    ("search", "/review/agents/alice/notes/?q=cat+called+Miso"),
    ("note", "/review/notes/{cat}/"),
    ("graph", "/review/notes/{cat}/graph/"),
    ("merges", "/review/queues/merges/"),
    ("conflicts", "/review/queues/conflicts/"),
    ("quality", "/review/queues/quality/"),
    ("run", "/review/runs/{run}/"),
    ("core", "/review/agents/alice/core/"),
]


def test_screenshots(logged_in, live_server, alice, make_note):
    page = logged_in
    ids = {k: v.pk for k, v in _demo(make_note, alice).items()}
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height, tag in ((1280, 800, "desktop"), (390, 844, "phone")):
        page.set_viewport_size({"width": width, "height": height})
        for name, path in PAGES:
            page.goto(live_server.url + path.format(**ids))
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(SHOTS / f"{name}-{tag}.png"))
    for width, height, tag in ((1280, 800, "desktop"), (390, 844, "phone")):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_server.url}/review/queues/conflicts/")
        page.locator("#queue .card summary").first.click()
        page.screenshot(path=str(SHOTS / f"conflict-edit-{tag}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/review/queues/quality/")
    page.check("#select-all")
    page.click("#bulk-form button[value=retire]")
    page.locator("#bulk-dialog button.primary").wait_for()
    page.screenshot(path=str(SHOTS / "quality-bulk-preview-desktop.png"))
    page.locator("#bulk-dialog button.primary").click()
    expect(page.locator("#queue-empty")).to_be_visible()
    page.screenshot(path=str(SHOTS / "quality-done-desktop.png"))
    page.emulate_media(color_scheme="dark")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(SHOTS / "merges-dark.png"))
    page.goto(f"{live_server.url}/review/agents/alice/notes/?q=cat+called+Miso")
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(SHOTS / "search-dark.png"))
