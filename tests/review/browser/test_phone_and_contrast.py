"""Every page on a phone and in both colour schemes: no sideways scroll, tap targets, AA contrast."""

from __future__ import annotations

import pytest

from engine.layers import core
from memories.models import JobRun, NoteEvent, Pair

pytestmark = pytest.mark.browser


def _pages(live_server, alice, make_note) -> list[str]:
    """One of every review page, with a card in each queue, a search hit and a history."""
    note = make_note(
        alice,
        "Alice's cat is called Miso and sleeps on the piano in the afternoon sun.",
        sources=["chat-9"],
        tags=["pets", "home"],
        subjects=["alice"],
    )
    other = make_note(alice, "Miso the cat was adopted from the city shelter in 2021.")
    Pair.objects.create(kind=Pair.MERGE, older=note, newer=other, similarity=0.81)
    Pair.objects.create(
        kind=Pair.CONFLICT,
        older=make_note(alice, "Alice's cat is called Mochi, a long-haired tabby."),
        newer=note,
        reason="[write] one text negates what the other states",
    )
    for i in range(2):
        make_note(
            alice,
            f"Alice said something vague about item number {i} once.",
            low_quality=True,
            low_quality_reasons=["too_vague"],
        )
    NoteEvent.objects.create(
        note=note,
        action="review",
        actor="review:rita",
        before={"content": "Alice's cat is called Miso.", "tags": ["pets"]},
        after={"content": note.content, "tags": ["pets", "home"], "op": "edit", "group": "g1"},
    )
    run = JobRun.objects.create(
        job="nightly", agent_id="alice", outcome="partial", counts={"llm_failed": 11, "llm_calls": 17}
    )
    core.replace(alice, "user", "name", "Alex")
    base = f"{live_server.url}/review"
    return [
        f"{base}/",
        f"{base}/agents/alice/notes/",
        f"{base}/agents/alice/notes/?q=cat+Miso",
        f"{base}/notes/{note.pk}/",
        f"{base}/notes/{other.pk}/graph/",
        f"{base}/queues/merges/",
        f"{base}/queues/conflicts/",
        f"{base}/queues/quality/",
        f"{base}/runs/{run.pk}/",
        f"{base}/agents/alice/core/",
    ]


def test_no_page_scrolls_sideways_on_a_390_px_phone(logged_in, live_server, alice, make_note):
    page = logged_in
    page.set_viewport_size({"width": 390, "height": 844})
    wide = {}
    for url in _pages(live_server, alice, make_note):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide[url] = width
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/review/login/")
    if page.evaluate("document.documentElement.scrollWidth") > 390:
        wide["login"] = page.evaluate("document.documentElement.scrollWidth")
    assert wide == {}


# Every visible control, measured as a finger meets it: a checkbox by its label when it has one.
# Exempt, as WCAG 2.5.8 exempts them: a link inside a sentence (its parent has other text).
TAP_JS = """() => {
  const small = [];
  for (const el of document.querySelectorAll("a, button, input:not([type=hidden]), select, summary, textarea")) {
    const target = el.matches("input[type=checkbox], input[type=radio]") && el.closest("label") ? el.closest("label") : el;
    const r = target.getBoundingClientRect();
    if (!r.width || !r.height || r.right < 0 || getComputedStyle(target).visibility === "hidden") continue;
    if (el.tagName === "A" && getComputedStyle(el).display === "inline") {
      const around = (el.parentElement.textContent || "").replace(/\\s+/g, " ").trim();
      const own = (el.textContent || "").replace(/\\s+/g, " ").trim();
      if (around.length > own.length + 2) continue;
    }
    if (r.height < 40 || r.width < 40) small.push([el.tagName.toLowerCase(), (el.textContent || el.name || el.type || "").trim().slice(0, 30), Math.round(r.width), Math.round(r.height)]);
  }
  return small;
}"""


def test_tap_targets_are_at_least_40_px_on_a_phone(logged_in, live_server, alice, make_note):
    page = logged_in
    page.set_viewport_size({"width": 390, "height": 844})
    small = {}
    for url in _pages(live_server, alice, make_note):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        found = page.evaluate(TAP_JS)
        if found:
            small[url.split("/review", 1)[1]] = found
    assert small == {}, "\n".join(f"{url}: {found}" for url, found in small.items())


def test_dark_mode_follows_the_system_setting(logged_in, live_server):
    page = logged_in
    page.emulate_media(color_scheme="dark")
    page.goto(f"{live_server.url}/review/queues/quality/")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(21, 23, 26)"
    assert page.evaluate("getComputedStyle(document.body).color") == "rgb(230, 232, 235)"
    page.emulate_media(color_scheme="light")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"


# The contrast of every visible element a selector matches: its computed colour against the
# first opaque background behind it (WCAG relative luminance).
CONTRAST_JS = """(selectors) => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const bg = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const sel of selectors) {
    for (const el of document.querySelectorAll(sel)) {
      if (!el.getClientRects().length || el.disabled || el.closest("button:disabled")) continue;
      if (!(el.textContent || "").trim()) continue;
      const a = lum(rgb(getComputedStyle(el).color)), b = lum(bg(el));
      out.push([sel, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]);
    }
  }
  return out;
}"""
TEXT = [
    "body",
    "main h1",
    ".muted",
    "a",
    ".badge",
    ".badge.warn",
    ".badge.info",
    ".count",
    ".outcome",
    "button",
    "button.danger",
    "button.primary",
    "button.link",
    ".flag",
    "del",
    "ins",
    "mark",
    "mark.only-a",
    "mark.only-b",
    "kbd",
    ".chip",
    ".chip.added",
    ".chip.removed",
    ".msg",
    ".trend .day",
    "summary",
    "th",
    "dt",
    "label",
]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_colours_meet_wcag_aa(logged_in, live_server, alice, make_note, scheme):
    page = logged_in
    page.emulate_media(color_scheme=scheme)
    low = set()
    checked = set()
    for url in _pages(live_server, alice, make_note):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        for selector, ratio in page.evaluate(CONTRAST_JS, TEXT):
            checked.add(selector)
            if ratio < 4.5:
                low.add((url.split("/review", 1)[1], selector, round(ratio, 2)))
    # The search page highlights the query's words (<mark>): dark mode must keep them readable.
    assert "mark" in checked and "del" in checked and "ins" in checked
    assert sorted(low) == [] and len(checked) >= 20
