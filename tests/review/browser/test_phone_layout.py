"""Queue cards on a 390 px phone: words stay whole, nothing scrolls sideways, the sticky bar is one
row, the current card is fully visible under it, and a disclosure keeps its arrow."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import Pair

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LONG_ID = "conversation-2026-11-30-session-000417-turn-000023-message-7f3a9c1e"
OLDER = (
    "Sarah is planning a trip to the Odyssey gardens for their family of five this summer; the teenagers "
    "are not avid hikers, so they want short walks, a lake to swim in and a place with good coffee nearby."
)
NEWER = (
    "Sara is planning a trip to the Odysseys garden for her family of six next summer; the teens "
    "are keen hikers, so they want long walks, a river to swim in and a place with strong tea nearby."
)


def _long_cards(make_note, alice, n: int = 4) -> None:
    for i in range(n):
        old = make_note(alice, f"{OLDER} ({i})", sources=[LONG_ID])
        new = make_note(alice, f"{NEWER} ({i})", sources=[LONG_ID])
        Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.8)
        a = make_note(alice, f"{OLDER} [{i}]", sources=[LONG_ID])
        b = make_note(alice, f"{NEWER} [{i}]", sources=[LONG_ID])
        Pair.objects.create(kind=Pair.CONFLICT, older=a, newer=b, reason="r")
        make_note(alice, f"Something about the {LONG_ID} thing {i}.", low_quality=True, low_quality_reasons=["vague"])


# Single-word marks taller than one line: a word broken mid-word ("Sa/ra/h" when the text was a
# flex row of marks, each squeezed to a few letters' width).
BROKEN_WORDS = """() => Array.from(document.querySelectorAll("#queue mark")).filter((m) => !/\\s/.test(m.textContent.trim()))
  .map((m) => [m.textContent, m.getBoundingClientRect().height, parseFloat(getComputedStyle(m.closest("p")).lineHeight)])
  .filter(([, height, line]) => height > line * 1.5)"""


def test_a_long_card_keeps_words_whole_and_nothing_scrolls_sideways(logged_in, live_server, alice, make_note):
    page = logged_in
    page.set_viewport_size(PHONE)
    _long_cards(make_note, alice)
    for queue in ("merges", "conflicts", "quality"):
        page.goto(f"{live_server.url}/review/queues/{queue}/")
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, queue
        if queue == "quality":
            continue
        assert page.evaluate(BROKEN_WORDS) == [], queue
        # A side's text runs the card's width, never a column a few letters wide.
        widths = page.evaluate("Array.from(document.querySelectorAll('#queue .side .text')).map((t) => t.clientWidth)")
        assert widths and min(widths) >= 280, (queue, widths)


def test_the_sticky_bar_is_one_row_and_the_current_card_is_fully_visible_under_it(
    logged_in, live_server, alice, make_note
):
    page = logged_in
    page.set_viewport_size(PHONE)
    _long_cards(make_note, alice)
    for queue in ("merges", "conflicts", "quality"):
        page.goto(f"{live_server.url}/review/queues/{queue}/")
        page.wait_for_load_state("networkidle")
        bar = page.locator("#queue-bar").bounding_box()
        assert bar is not None and bar["height"] <= 80, (queue, bar)
        for _ in range(page.locator("#queue .card").count()):
            page.keyboard.press("j")
            box = page.evaluate(
                """() => { const c = document.querySelector("#queue .card.current").getBoundingClientRect();
                           const b = document.getElementById("queue-bar").getBoundingClientRect();
                           return [c.top, c.bottom, b.bottom, window.innerHeight]; }"""
            )
            top, bottom, bar_bottom, height = box
            assert top >= bar_bottom - 1 and bottom <= height + 1, (queue, box)


def test_a_done_cards_text_keeps_its_disclosure_arrow_on_a_phone(logged_in, live_server, alice, make_note):
    page = logged_in
    page.set_viewport_size(PHONE)
    note = make_note(
        alice, "Something about the thing we discussed earlier.", low_quality=True, low_quality_reasons=["vague"]
    )
    page.goto(f"{live_server.url}/review/queues/quality/")
    # The menu's counts load after the page: a click before that settles was once lost under load.
    page.wait_for_load_state("networkidle")
    page.locator(f"#quality-{note.pk} button:has-text('Keep')").click()
    summary = page.locator(f"#quality-{note.pk} summary")
    expect(summary).to_be_visible()
    # The arrow is the summary's list marker: it exists only while the summary is a list item.
    assert summary.evaluate("(s) => getComputedStyle(s).display") == "list-item"
    assert (summary.bounding_box() or {}).get("height", 0) >= 40
