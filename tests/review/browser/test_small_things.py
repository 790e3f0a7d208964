"""Small things a reviewer meets: line breaks survive a merge, a decided card says what it kept,
and no page logs an error in the console."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import Note, Pair

pytestmark = pytest.mark.browser


def test_line_breaks_show_on_the_card_and_survive_same_fact(logged_in, live_server, alice, make_note):
    page = logged_in
    old = make_note(alice, "Packing list for the trip:\n- boots\n- rain jacket")
    new = make_note(alice, "Packing list for the trip:\n- rain jacket\n- sun hat")
    pair = Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.9)
    page.goto(f"{live_server.url}/review/queues/merges/")
    card = page.locator(f"#merge-{pair.pk}")
    assert card.locator(".side.older .text").inner_text() == "Packing list for the trip:\n- boots\n- rain jacket"
    expect(card.locator("[data-preview]")).to_have_value(
        "Packing list for the trip:\n- boots\n- rain jacket\n- sun hat"
    )
    card.locator("button:has-text('Same fact')").click()
    expect(card.locator("[role=status]")).to_contain_text("Same fact")
    assert Note.objects.get(pk=old.pk).content == "Packing list for the trip:\n- boots\n- rain jacket\n- sun hat"


def test_a_decided_conflict_says_which_text_it_kept(logged_in, live_server, alice, make_note):
    page = logged_in
    older = make_note(alice, "The team meets on Mondays at nine.")
    newer = make_note(alice, "The team meets on Tuesdays at ten now.")
    pair = Pair.objects.create(kind=Pair.CONFLICT, older=older, newer=newer, reason="r")
    page.goto(f"{live_server.url}/review/queues/conflicts/")
    card = page.locator(f"#conflict-{pair.pk}")
    card.locator("button:has-text('Newer replaces older')").click()
    expect(card.locator("[role=status]")).to_have_text(
        "✓ The newer replaces the older: kept “The team meets on Tuesdays at ten now.”; "
        "retired “The team meets on Mondays at nine.”."
    )


def test_no_review_page_logs_an_error_or_a_failed_request(logged_in, live_server, alice, make_note):
    """Headless chromium asks for no favicon; a desktop browser asks /favicon.ico of every page
    that names no icon, and logs its 404: every page names one."""
    page = logged_in
    note = make_note(alice, "Alice's cat is called Miso.", low_quality=True, low_quality_reasons=["vague"])
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.set_viewport_size({"width": 1280, "height": 800})
    for path in (
        "/review/",
        "/review/queues/merges/",
        "/review/queues/conflicts/",
        "/review/queues/quality/",
        f"/review/notes/{note.pk}/",
        "/review/agents/alice/notes/",
    ):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
        if not page.locator("head link[rel=icon]").count():
            problems.append(f"no icon on {path}: a desktop browser asks /favicon.ico and logs a 404")
    assert problems == []
