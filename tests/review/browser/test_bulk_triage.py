"""Issue #12 in a real browser: bulk triage, keyboard-only queues, conflicts, merge preview, phone width, dark mode."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import ConflictPair, JobRun, Note

pytestmark = pytest.mark.browser


def _low_quality(make_note, agent, n: int) -> list[Note]:
    return [
        make_note(
            agent,
            f"Alice said something vague about item number {i} once.",
            low_quality=True,
            low_quality_reasons=["too_vague"],
        )
        for i in range(n)
    ]


def test_bulk_retire_20_low_quality_notes_in_one_action_and_undo_it(logged_in, live_server, alice, make_note):
    page = logged_in
    notes = _low_quality(make_note, alice, 20)
    page.goto(f"{live_server.url}/review/queues/quality/")
    expect(page.locator("#left")).to_have_text("20")
    page.check("#select-all")
    expect(page.locator("#selected")).to_have_text("20")
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click("#bulk-form button[value=retire]")
    expect(page.locator("#bulk-result")).to_contain_text("Retired 20 notes")
    assert asked == ["Retire 20 notes?"]
    expect(page.locator("#queue .card.done")).to_have_count(20)
    expect(page.locator("#left")).to_have_text("0")
    expect(page.locator("#queue-empty")).to_be_visible()
    # Done cards keep the note's text, collapsed.
    expect(page.locator(f"#quality-{notes[0].pk} details")).to_contain_text("item number 0")
    assert Note.objects.filter(pk__in=[n.pk for n in notes], is_active=True).count() == 0
    page.click("#bulk-result button:has-text('Undo all 20')")
    expect(page.locator("#bulk-result")).to_contain_text("Undone: 20 notes")
    expect(page.locator("#queue .card:not(.done)")).to_have_count(20)
    expect(page.locator("#left")).to_have_text("20")
    assert Note.objects.filter(pk__in=[n.pk for n in notes], is_active=True).count() == 20


def test_clear_a_queue_by_keyboard_alone(logged_in, live_server, alice, make_note):
    page = logged_in
    notes = _low_quality(make_note, alice, 6)
    page.goto(f"{live_server.url}/review/queues/quality/")
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()
    page.keyboard.press("j")
    for i in range(3):  # keep three, one key each; the next card becomes current
        page.keyboard.press("e")
        expect(page.locator("#queue .card.done")).to_have_count(i + 1)
        expect(page.locator("#queue .card.current:not(.done)")).to_have_count(1)
    page.keyboard.press("u")  # undo the last keep
    expect(page.locator("#queue .card.done")).to_have_count(2)
    page.keyboard.press("*")  # select every card left, retire them all (Enter accepts the question)
    page.once("dialog", lambda d: d.accept())
    page.keyboard.press("r")
    expect(page.locator("#queue-empty")).to_be_visible()
    expect(page.locator("#left")).to_have_text("0")
    states = {n.pk: (n.is_active, n.low_quality) for n in Note.objects.filter(pk__in=[n.pk for n in notes])}
    assert sorted(states.values()) == [(False, True)] * 4 + [(True, False)] * 2


def test_resolving_a_conflict_takes_the_note_out_of_every_queue(logged_in, live_server, alice, make_note):
    page = logged_in
    a = make_note(
        alice,
        "Alice's office is on the third floor.",
        conflict=True,
        conflict_reason="floor",
        low_quality=True,
        low_quality_reasons=["pending_conflict"],
    )
    b = make_note(
        alice,
        "Alice's office is on the fifth floor.",
        conflict=True,
        conflict_reason="floor",
        low_quality=True,
        low_quality_reasons=["pending_conflict"],
    )
    pair = ConflictPair.objects.create(note_a=a, note_b=b, reason="Which floor is the office on?")
    page.goto(f"{live_server.url}/review/queues/quality/")
    expect(page.locator(f"#quality-{a.pk}")).to_have_count(0)  # one place per note: Conflicts
    expect(page.locator("main")).to_contain_text("2 flagged notes are part of an open conflict")
    page.click("main a:has-text('Conflicts')")
    card = page.locator(f"#conflict-{pair.pk}")
    expect(card.locator("mark.only-a")).to_contain_text("third")
    expect(card.locator("mark.only-b")).to_contain_text("fifth")
    card.locator("button:has-text('Keep A')").click()
    expect(card.locator("[role=status]")).to_contain_text("Kept A")
    expect(page.locator("#count-conflicts")).to_have_text("0")
    expect(page.locator("#count-quality")).to_have_text("0")
    a.refresh_from_db()
    assert (a.is_active, a.conflict, a.low_quality, a.low_quality_reasons) == (True, False, False, [])
    for queue in ("quality", "conflicts", "merges"):
        page.goto(f"{live_server.url}/review/queues/{queue}/")
        expect(page.locator("#queue-empty")).to_be_visible()
        assert str(a.pk) not in page.locator("#queue").inner_html()


def test_the_merge_preview_is_the_merged_text(logged_in, live_server, alice, make_note):
    page = logged_in
    old = make_note(alice, "Alice drinks green tea every morning.", sources=["chat-1"])
    new = make_note(
        alice,
        "Alice drinks green tea every morning. She takes it without sugar.",
        sources=["chat-2"],
        pending_merge=True,
        merge_candidate=old,
        merge_similarity=0.83,
    )
    page.goto(f"{live_server.url}/review/queues/merges/")
    card = page.locator(f"#merge-{new.pk}")
    expect(card).to_contain_text("similarity 0.83")
    expect(card).to_contain_text("chat-1")
    expect(card.locator("mark.only-b")).to_contain_text("without sugar")
    preview = card.locator("[data-preview]").inner_text()
    card.locator("button:has-text('Merge')").click()
    expect(card.locator("[role=status]")).to_contain_text("Merged into the note it resembled")
    old.refresh_from_db()
    assert old.content == preview == "Alice drinks green tea every morning. She takes it without sugar."
    assert not Note.objects.get(pk=new.pk).is_active


def _pages(live_server, alice, make_note) -> list[str]:
    note = make_note(
        alice,
        "Alice's cat is called Miso and sleeps on the piano in the afternoon sun.",
        sources=["chat-9"],
        tags=["pets", "home"],
        subjects=["alice"],
    )
    other = make_note(
        alice,
        "Miso the cat was adopted from the city shelter in 2021.",
        pending_merge=True,
        merge_candidate=note,
        merge_similarity=0.81,
    )
    ConflictPair.objects.create(
        note_a=note,
        note_b=make_note(alice, "Alice's cat is called Mochi, a long-haired tabby."),
        reason="The cat's name",
    )
    _low_quality(make_note, alice, 2)
    run = JobRun.objects.create(
        job="nightly", agent_id="alice", outcome="partial", counts={"llm_failed": 11, "llm_calls": 17}
    )
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


def test_dark_mode_follows_the_system_setting(logged_in, live_server, alice, make_note):
    page = logged_in
    page.emulate_media(color_scheme="dark")
    page.goto(f"{live_server.url}/review/queues/quality/")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(21, 23, 26)"
    assert page.evaluate("getComputedStyle(document.body).color") == "rgb(230, 232, 235)"
    page.emulate_media(color_scheme="light")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"


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
      if (!el.offsetParent || el.disabled || el.closest("button:disabled")) continue;
      const a = lum(rgb(getComputedStyle(el).color)), b = lum(bg(el));
      out.push([sel, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]);
      break;
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
    ".badge.bad",
    ".count",
    ".outcome",
    "button",
    "button.danger",
    ".flag",
    "del",
    "ins",
    "kbd",
    ".chip",
    ".msg",
]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_colours_meet_wcag_aa(logged_in, live_server, alice, make_note, scheme):
    page = logged_in
    page.emulate_media(color_scheme=scheme)
    low = []
    checked = set()
    for url in _pages(live_server, alice, make_note):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        for selector, ratio in page.evaluate(CONTRAST_JS, TEXT):
            checked.add(selector)
            if ratio < 4.5:
                low.append((url, selector, round(ratio, 2)))
    assert low == [] and len(checked) >= 12


def test_browser_pages_number_on_and_start_at_the_top(logged_in, live_server, alice, make_note):
    page = logged_in
    for i in range(25):
        make_note(alice, f"Alice remembers numbered fact {i:02d} about her garden and the weather.")
    page.set_viewport_size({"width": 390, "height": 700})
    page.goto(f"{live_server.url}/review/agents/alice/notes/")
    page.keyboard.press("Tab")  # the first stop is the skip link
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("window.scrollY") > 0
    page.click("text=older →")
    expect(page.locator("#results")).to_contain_text("page 2 of 2")
    assert page.locator("#results ol.notes").get_attribute("start") == "21"
    page.wait_for_function("window.scrollY === 0")
