"""Pages that must agree and read as words: dashboard counts, note history, core memory."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from engine.layers import core
from memories.models import CoreBlock, Note, Pair

pytestmark = pytest.mark.browser

UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.IGNORECASE)


def test_the_dashboard_counts_what_the_menu_badges_count(logged_in, live_server, alice, make_note):
    page = logged_in
    for i in range(2):
        make_note(alice, f"Alice said something vague about item {i}.", low_quality=True, low_quality_reasons=["vague"])
    in_conflict = {"low_quality": True, "low_quality_reasons": ["pending_conflict"]}
    a = make_note(alice, "Alice's office is on the third floor.", **in_conflict)
    b = make_note(alice, "Alice's office is on the fifth floor.", **in_conflict)
    Pair.objects.create(kind=Pair.CONFLICT, older=b, newer=a, reason="floor")
    # b also waits for a merge (beside a third note): in a conflict, it is counted in Conflicts only.
    c = make_note(alice, "Alice works on the fifth floor of the office.")
    Pair.objects.create(kind=Pair.MERGE, older=c, newer=b, similarity=0.9)
    make_note(alice, "A note that will be made short.", content="ok")
    page.goto(f"{live_server.url}/review/")
    row = page.locator("#agent-alice")
    expect(page.locator("#count-quality")).to_have_text("3")
    for queue, column in (("quality", 6), ("merges", 4), ("conflicts", 5)):
        badge = page.locator(f"#count-{queue}").inner_text()
        assert row.locator(f"td:nth-child({column})").inner_text() == badge, queue


def test_history_names_notes_by_text_and_shows_a_diff_for_every_edit(logged_in, live_server, alice, make_note):
    page = logged_in
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks green tea every morning. She takes it without sugar.")
    pair = Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.9)
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.locator(f"#merge-{pair.pk} button:has-text('Same fact')").click()
    expect(page.locator(f"#merge-{pair.pk} [role=status]")).to_contain_text("Same fact")
    page.goto(f"{live_server.url}/review/notes/{old.pk}/")
    page.fill("#content", "Alice drinks green tea every morning. She takes it with no sugar at all.")
    page.click("text=Save text")
    expect(page.locator("#note-main .msg.success")).to_contain_text("Saved")
    history = page.locator(".history")
    text = history.inner_text()
    assert UUID.findall(text) == [], text
    assert "She takes it without sugar" in text  # the merged note, by its text
    newest = history.locator("li").first
    expect(newest).to_contain_text("Text edited")
    # By words: "without" gave way to "with no", and "at all" came in; "sugar" stayed.
    expect(newest.locator("del", has_text="without")).to_have_count(1)
    expect(newest.locator("ins", has_text="with no")).to_have_count(1)
    expect(newest.locator("ins", has_text="at all")).to_have_count(1)
    merged = history.locator("li:has-text('Text merged in')").first
    expect(merged.locator("ins", has_text="She takes it without sugar")).not_to_have_count(0)


def test_a_core_memory_undo_asks_first_and_is_itself_undoable(logged_in, live_server, alice):
    page = logged_in
    core.replace(alice, "user", "name", "Alex")
    block = core.replace(alice, "user", "city", "Porto")
    page.goto(f"{live_server.url}/review/agents/alice/core/")
    section = page.locator(f"#block-{block.pk}")
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    section.locator("button:has-text('Undo')").click()
    expect(section.locator("textarea")).to_contain_text("Porto")  # dismissed: nothing changed
    assert asked and "Undo" in asked[0]
    assert CoreBlock.objects.get(pk=block.pk).value == {"name": "Alex", "city": "Porto"}
    page.once("dialog", lambda d: d.accept())
    section.locator("button:has-text('Undo')").click()
    expect(page.locator("#messages")).to_contain_text("undone")
    assert CoreBlock.objects.get(pk=block.pk).value == {"name": "Alex"}
    # The undo is the newest change now, and it can be undone too.
    page.once("dialog", lambda d: d.accept())
    page.locator(f"#block-{block.pk} button:has-text('Undo')").click()
    expect(page.locator("#messages")).to_contain_text("undone")
    assert CoreBlock.objects.get(pk=block.pk).value == {"name": "Alex", "city": "Porto"}


def test_invalid_core_json_keeps_the_typed_text_with_a_clear_error(logged_in, live_server, alice):
    page = logged_in
    block = core.replace(alice, "user", "name", "Alex")
    page.goto(f"{live_server.url}/review/agents/alice/core/")
    section = page.locator(f"#block-{block.pk}")
    typed = '{"name": "Alexandra", "city": Lisbon}'
    section.locator("textarea").fill(typed)
    section.locator("button:has-text('Save')").click()
    expect(page.locator("#messages .msg.error")).to_contain_text("not valid JSON")
    expect(page.locator(f"#block-{block.pk} textarea")).to_have_value(typed)
    assert CoreBlock.objects.get(pk=block.pk).value == {"name": "Alex"}
    assert Note.objects.count() == 0
