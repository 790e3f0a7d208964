"""The review app on a 2,000-note store, measured for docs/benchmarks.md. Not part of the suite's
claims: skipped unless AMEM_REVIEW_MEASURE=1, e.g.

    AMEM_REVIEW_MEASURE=1 python -m pytest tests/review/browser/test_measure_store.py -q -s

The store: the 2,000 LoCoMo observations of bench/curation/sets/locomo_observations.jsonl written
through the full write path (add_memory, the offline rules, the real MiniLM embedder), then the
nightly jobs; then queues topped up, directly, to the sizes the review of this app met (about 210
pending merges, 40 conflicts, 60 low-quality notes), since what the jobs flag depends on their
thresholds. Each figure prints one line "MEASURE <name> …".
"""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
import time
from pathlib import Path

import pytest
from django.db.models import Q
from playwright.sync_api import expect

from engine.maintenance.runner import SEQUENCES, run_jobs
from engine.write.pipeline import add_memory
from memories.models import Note, Pair, waiting_q

pytestmark = [
    pytest.mark.browser,
    pytest.mark.realmodel,
    pytest.mark.skipif(os.environ.get("AMEM_REVIEW_MEASURE") != "1", reason="measurement run only"),
]
OBSERVATIONS = Path(__file__).resolve().parents[3] / "bench" / "curation" / "sets" / "locomo_observations.jsonl"
NIGHTLY = SEQUENCES["nightly"]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/156.0 Mobile Safari/537.36",
}
WANT = {"merges": 210, "conflicts": 40, "quality": 60}


def _report(name: str, **values) -> None:
    print(f"MEASURE {name} " + " ".join(f"{k}={v}" for k, v in values.items()), flush=True)


def _build(alice) -> None:
    rows = [json.loads(line) for line in OBSERVATIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    started = time.perf_counter()
    for row in rows:
        at = dt.datetime.fromisoformat(row["at"])
        add_memory(row["text"], alice, sources=[row["source"].replace(" ", "-")], occurred_at=at)
    _report("store_writes", notes=len(rows), seconds=f"{time.perf_counter() - started:.0f}")
    started = time.perf_counter()
    run_jobs(NIGHTLY, agents=[alice])
    _report("store_nightly", seconds=f"{time.perf_counter() - started:.0f}")
    _top_up(alice)


def _top_up(alice) -> None:
    """Queues of the sizes the review met: pairs of neighbouring observations (same speaker, same day)."""
    from review.views.queues import waiting_by_agent

    waiting = waiting_by_agent(["alice"])["alice"]
    _report("store_after_jobs", **waiting, active=Note.objects.filter(agent_id="alice", is_active=True).count())
    busy = waiting_q() | Q(low_quality=True)  # in an open pair, or flagged
    free = list(Note.objects.filter(agent_id="alice", is_active=True).exclude(busy).order_by("created_at", "pk"))
    at = 0
    for _ in range(max(0, WANT["merges"] - waiting["merges"])):
        older, newer = free[at], free[at + 1]
        Pair.objects.create(kind=Pair.MERGE, older=older, newer=newer, similarity=0.86)
        at += 2
    for _ in range(max(0, WANT["conflicts"] - waiting["conflicts"])):
        older, newer = free[at], free[at + 1]
        Pair.objects.create(kind=Pair.CONFLICT, older=older, newer=newer, reason="r", likelihood=0.5, opened_by="rules")
        at += 2
    for _ in range(max(0, WANT["quality"] - waiting["quality"])):
        Note.objects.filter(pk=free[at].pk).update(low_quality=True, low_quality_reasons=["fragment"])
        at += 1
    _report("store_queues", **waiting_by_agent(["alice"])["alice"])


def _reachable(page, base: str, queue: str) -> tuple[int, int]:
    """(the badge, the distinct cards met paging through the queue)."""
    page.goto(f"{base}/review/queues/{queue}/")
    page.wait_for_load_state("networkidle")
    badge = int(page.locator(f"#count-{queue}").inner_text())
    keys: set[str] = set()
    while True:
        keys |= {c.get_attribute("data-key") or "" for c in page.locator("#queue .card").all()}
        following = page.locator(".pager a:has-text('next')")
        if not following.count():
            return badge, len(keys)
        following.click()
        page.wait_for_load_state("load")


FIRST_PAINT = """() => {
  const paint = (name) => (performance.getEntriesByName(name)[0] || {}).startTime;
  const nav = performance.getEntriesByType("navigation")[0];
  const bytes = performance.getEntriesByType("resource").reduce((n, r) => n + (r.transferSize || 0), nav.transferSize || 0);
  return {fcp: paint("first-contentful-paint"), fp: paint("first-paint"), ttfb: nav.responseStart,
          dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, html: nav.transferSize, bytes};
}"""


def _first_paint(chromium, base: str, cookies, path: str, runs: int = 5) -> list[dict]:
    out = []
    for _ in range(runs):
        context = chromium.new_context(**PHONE)
        context.add_cookies(cookies)
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        page.goto(f"{base}{path}", wait_until="load")
        page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0")
        out.append(page.evaluate(FIRST_PAINT))
        context.close()
    return out


def test_measure_a_2000_note_store(logged_in, live_server, alice, chromium):
    page = logged_in
    _build(alice)
    base = live_server.url

    for queue in ("merges", "conflicts", "quality"):
        badge, met = _reachable(page, base, queue)
        _report("reachable", queue=queue, badge=badge, cards_met=met)

    cookies = page.context.cookies()
    for queue in ("merges", "conflicts", "quality"):
        runs = _first_paint(chromium, base, cookies, f"/review/queues/{queue}/")
        fcp = [r["fcp"] for r in runs]
        _report(
            "phone_first_paint_4x_cpu",
            queue=queue,
            median_ms=f"{statistics.median(fcp):.0f}",
            runs_ms="/".join(f"{v:.0f}" for v in fcp),
            ttfb_ms=f"{statistics.median(r['ttfb'] for r in runs):.0f}",
            load_ms=f"{statistics.median(r['load'] for r in runs):.0f}",
            html_kb=f"{runs[0]['html'] / 1024:.0f}",
            all_kb=f"{runs[0]['bytes'] / 1024:.0f}",
        )

    page.set_viewport_size({"width": 390, "height": 844})
    note = Note.objects.filter(agent_id="alice", is_active=True).waiting(Pair.MERGE, as_newer=True).first()
    pair = Pair.objects.open().of_kind(Pair.CONFLICT).first()
    paths = [
        "/review/",
        "/review/agents/alice/notes/",
        "/review/agents/alice/notes/?q=support+group",
        f"/review/notes/{note.pk}/",
        f"/review/notes/{note.pk}/graph/",
        "/review/agents/alice/core/",
        *(f"/review/queues/{q}/?page={n}" for q in ("merges", "conflicts", "quality") for n in (1, 2, 3)),
        f"/review/queues/conflicts/?pair={pair.pk}",
    ]
    wide = {}
    for path in paths:
        page.goto(f"{base}{path}")
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide[path] = width
    _report("sideways_scroll_390", pages=len(paths), wider_than_390=len(wide), detail=json.dumps(wide) or "-")

    for queue in ("merges", "conflicts", "quality"):
        page.goto(f"{base}/review/queues/{queue}/")
        page.wait_for_load_state("networkidle")
        bar = page.locator("#queue-bar").bounding_box() or {}
        hidden, checked = [], 0
        for _ in range(page.locator("#queue .card").count()):
            page.keyboard.press("j")
            top, bottom, bar_bottom, height = page.evaluate(
                """() => { const c = document.querySelector("#queue .card.current").getBoundingClientRect();
                           const b = document.getElementById("queue-bar").getBoundingClientRect();
                           return [c.top, c.bottom, b.bottom, window.innerHeight]; }"""
            )
            checked += 1
            if top < bar_bottom - 1 or bottom > height + 1:
                hidden.append(round(bottom - top))
        _report(
            "current_card_under_bar",
            queue=queue,
            bar_px=round(bar.get("height", 0)),
            cards=checked,
            not_fully_visible=len(hidden),
            heights=json.dumps(hidden) or "-",
        )
    expect(page.locator("#queue")).to_be_visible()
