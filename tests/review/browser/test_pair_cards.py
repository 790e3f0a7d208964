"""The pair flow as a reviewer meets it: reasons in words, an honest "same fact", the newer replacing
the older in Merges, "not related" recorded, search and filter inside a queue, a note's link to its
card, and Chinese marked by words."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memories.models import Note, NoteEvent, Pair

pytestmark = pytest.mark.browser


def _pending(
    make_note, agent, older: str, newer: str, *, subjects: list[str] | None = None, **fields
) -> tuple[Note, Note, Pair]:
    """A note waiting in Merges beside the older note it resembles: (older, newer, their pair)."""
    old = make_note(agent, older)
    new = make_note(agent, newer, **({"subjects": subjects} if subjects else {}))
    return old, new, Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.9, **fields)


def _waiting(note: Note) -> bool:
    """Whether the note still waits in Merges (the newer note of an open merge pair)."""
    return Pair.objects.open().of_kind(Pair.MERGE).filter(newer=note).exists()


def _conflict(make_note, agent, older: str, newer: str, **fields) -> Pair:
    old = make_note(agent, older)
    new = make_note(agent, newer)
    return Pair.objects.create(kind=Pair.CONFLICT, older=old, newer=new, **fields)


def test_every_card_says_the_guess_who_found_it_and_why_in_words(logged_in, live_server, alice, make_note):
    page = logged_in
    _, _, merge = _pending(
        make_note,
        alice,
        "Alice keeps her bike in the shed.",
        "Alice keeps her bicycle in the shed.",
        guess="same",
        reason="the same fact said twice: “bike” / “bicycle”",
    )
    model = _conflict(
        make_note,
        alice,
        "Alex lives in Leeds.",
        "Alex moved to York.",
        reason="may have changed (82% a change): “Leeds” → “York”",
        likelihood=0.82,
        opened_by="model",
    )
    rules = _conflict(
        make_note,
        alice,
        "Alice's bookkeeping office is in Dayton.",
        "Alice no longer runs the bookkeeping office in Dayton.",
        reason="may have changed (61% a change): the newer note says “no longer”",
        likelihood=0.61,
        opened_by="rules",
    )
    # A pair flagged before reasons were written in words: its rule's stemmed shorthand never shows.
    legacy = _conflict(
        make_note,
        alice,
        "Alice's family moved to Dayton for the Kroger headquarters office.",
        "Alice's family never moved to Dayton.",
        reason="[write] negation: alic no longer bookkeep dayton famili headquart kroger offic",
    )
    make_note(alice, "Something about the thing we discussed earlier.", low_quality=True, low_quality_reasons=["vague"])

    page.goto(f"{live_server.url}/review/queues/merges/")
    card = page.locator(f"#merge-{merge.pk}")
    expect(card.locator(".guess")).to_contain_text("Same fact said twice?")
    expect(card.locator(".reason")).to_have_text("the same fact said twice: “bike” / “bicycle”")
    expect(card.locator("button.primary")).to_have_text("Same fact s")  # the guess's decision comes first

    page.goto(f"{live_server.url}/review/queues/conflicts/")
    cards = page.locator("#queue .card")
    # The likeliest change first.
    expect(cards.nth(0)).to_have_id(f"conflict-{model.pk}")
    expect(cards.nth(1)).to_have_id(f"conflict-{rules.pk}")
    expect(page.locator(f"#conflict-{model.pk} .guess")).to_contain_text("decided by the model · 82% likely a change")
    expect(page.locator(f"#conflict-{rules.pk} .guess")).to_contain_text("found by rules · 61% likely a change")
    old_card = page.locator(f"#conflict-{legacy.pk}")
    expect(old_card.locator(".reason")).to_contain_text("What differs:")
    assert "bookkeep" not in old_card.inner_text() and "famili" not in old_card.inner_text()

    page.goto(f"{live_server.url}/review/queues/quality/")
    expect(page.locator("#queue .card ul.why")).to_contain_text("Vague: it points at something without saying what")


def test_same_fact_says_plainly_when_it_keeps_one_side_as_it_is(logged_in, live_server, alice, make_note):
    page = logged_in
    # The newer says what the older said and one thing more: the merged text is the newer's.
    pair = _conflict(
        make_note,
        alice,
        "Ana works at Farfetch as a data engineer.",
        "Ana no longer works at Farfetch; she joined a bakery in Porto.",
        reason="may have changed: “works at Farfetch” → “no longer works at Farfetch”",
        likelihood=0.9,
        opened_by="rules",
    )
    page.goto(f"{live_server.url}/review/queues/conflicts/")
    card = page.locator(f"#conflict-{pair.pk}")
    expect(card.locator("summary")).to_have_text("“Same fact” writes the newer note's text, as it is")
    expect(card.locator("[data-preview]")).to_have_value(
        "Ana no longer works at Farfetch; she joined a bakery in Porto."
    )
    expect(card.locator("button.primary")).to_have_text("Newer replaces older n")
    expect(card.locator("button", has_text="Merge B into A")).to_have_count(0)


def test_in_merges_the_newer_note_can_replace_the_existing_one_and_undo_brings_it_back(
    logged_in, live_server, alice, make_note
):
    page = logged_in
    old, new, pair = _pending(
        make_note, alice, "Alice has a red bicycle.", "Alice sold her red bicycle and now rides a blue one."
    )
    page.goto(f"{live_server.url}/review/queues/merges/")
    card = page.locator(f"#merge-{pair.pk}")
    card.locator("button:has-text('Newer replaces older')").click()
    expect(card.locator("[role=status]")).to_contain_text("kept “Alice sold her red bicycle")
    expect(card.locator("[role=status]")).to_contain_text("retired “Alice has a red bicycle.”")
    old.refresh_from_db()
    new.refresh_from_db()
    assert not old.is_active and new.is_active and not _waiting(new)
    card.locator("button:has-text('Undo')").click()
    expect(card.locator("button:has-text('Newer replaces older')")).to_be_visible()
    old.refresh_from_db()
    assert old.is_active and _waiting(new)


def test_not_related_keeps_both_and_is_recorded_in_the_history(logged_in, live_server, alice, make_note):
    page = logged_in
    old, new, pair = _pending(
        make_note, alice, "Alice's sister Mia lives in Rome.", "Alice's colleague Mia moved to Rome."
    )
    page.goto(f"{live_server.url}/review/queues/merges/")
    page.locator(f"#merge-{pair.pk} button:has-text('Not related')").click()
    expect(page.locator(f"#merge-{pair.pk} [role=status]")).to_contain_text("Not related: kept both")
    new.refresh_from_db()
    assert new.is_active and Note.objects.get(pk=old.pk).is_active and not _waiting(new)
    pair.refresh_from_db()
    assert (pair.status, pair.resolution) == (Pair.RESOLVED, "unrelated")
    assert NoteEvent.objects.filter(note=new, after__op="not_related", after__unrelated_to=str(old.pk)).exists()
    page.goto(f"{live_server.url}/review/notes/{new.pk}/")
    newest = page.locator(".history li").first
    expect(newest).to_contain_text("Pair decided: not related")  # every pair decision is the pair's record now
    expect(newest).to_contain_text("Alice's sister Mia lives in Rome.")  # the other note, by its text


def test_a_queue_can_be_searched_and_filtered(logged_in, live_server, alice, make_note):
    page = logged_in
    *_, tea = _pending(make_note, alice, "Alice drinks green tea.", "Alice drinks green tea daily.")
    *_, bike = _pending(make_note, alice, "Bob rides a bike.", "Bob rides a bike to work.", subjects=["bob"])
    Pair.objects.filter(pk=bike.pk).update(similarity=0.7)
    page.goto(f"{live_server.url}/review/queues/merges/")
    expect(page.locator("#left")).to_have_text("2")
    page.click("summary:has-text('Search and filter')")
    page.fill("input[name=q]", "green tea")
    page.click(".filters button:has-text('Filter')")
    expect(page.locator("#queue .card")).to_have_count(1)
    expect(page.locator(f"#merge-{tea.pk}")).to_be_visible()
    expect(page.locator("#queue-bar")).to_contain_text("1 left matching the filter")
    page.goto(f"{live_server.url}/review/queues/merges/?subject=bob")
    expect(page.locator("#queue .card")).to_have_count(1)
    expect(page.locator(f"#merge-{bike.pk}")).to_be_visible()
    page.goto(f"{live_server.url}/review/queues/merges/?min=0.8")
    expect(page.locator("#queue .card")).to_have_count(1)
    expect(page.locator(f"#merge-{tea.pk}")).to_be_visible()


def test_a_conflicted_note_links_to_its_own_card(logged_in, live_server, alice, make_note):
    page = logged_in
    pairs = [
        _conflict(make_note, alice, f"Alice has {n} cats.", f"Alice has {n + 1} cats.", reason="r") for n in (2, 7)
    ]
    Note.objects.filter(pk=pairs[1].newer_id).update(low_quality=True, low_quality_reasons=["pending_conflict"])
    page.goto(f"{live_server.url}/review/notes/{pairs[1].newer_id}/")
    main = page.locator("#note-main")
    # Its conflict's own flag is not a low-quality verdict to keep away.
    assert "pending_conflict" not in main.inner_text() and "Low quality" not in main.inner_text()
    expect(main.locator("button:has-text('Keep (clear low-quality flag)')")).to_have_count(0)
    main.locator("a:has-text('Decide it in Conflicts')").click()
    expect(page.locator("#queue .card")).to_have_count(1)
    expect(page.locator(f"#conflict-{pairs[1].pk}")).to_be_visible()


def test_chinese_is_marked_by_words_not_by_sentence(logged_in, live_server, alice, make_note):
    page = logged_in
    pair = _conflict(make_note, alice, "小明住在北京，他喜欢喝绿茶。", "小明住在上海，他喜欢喝绿茶。", reason="r")
    page.goto(f"{live_server.url}/review/queues/conflicts/")
    card = page.locator(f"#conflict-{pair.pk}")
    expect(card.locator("mark.only-a")).to_have_text("北京")
    expect(card.locator("mark.only-b")).to_have_text("上海")
