"""Triage without a browser: bulk actions, one place per note, merge preview, browser filters, run page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from engine.curation.actions import merge_preview
from memories.models import JobRun, LlmCall, Note, NoteEvent, Pair
from tests.review.conftest import HTMX

pytestmark = pytest.mark.django_db


def flagged(make_note, agent, n: int, **fields) -> list[Note]:
    return [
        make_note(
            agent,
            f"Alice said something vague about thing {i}.",
            low_quality=True,
            low_quality_reasons=["too_vague"],
            **fields,
        )
        for i in range(n)
    ]


def merge_pair(older: Note, newer: Note, **fields) -> Pair:
    """``newer`` waits in the merges queue beside ``older`` (a pending merge)."""
    return Pair.objects.create(kind=Pair.MERGE, older=older, newer=newer, **fields)


def in_conflict(note: Note) -> bool:
    """Whether the note waits in the conflicts queue (either side of an open conflict pair)."""
    return Note.objects.waiting(Pair.CONFLICT).filter(pk=note.pk).exists()


def test_a_bulk_retire_is_one_group_and_one_undo_brings_all_back(rclient, alice, make_note):
    notes = flagged(make_note, alice, 5)
    ids = [str(n.pk) for n in notes]
    preview = rclient.post("/review/queues/quality/bulk/", {"action": "retire", "ids": ids}, **HTMX).content.decode()
    # First what it will do, card by card; nothing written yet.
    assert "Retire: 5 notes?" in preview and preview.count("Retire “Alice said something vague") == 5
    assert Note.objects.filter(pk__in=ids, is_active=True).count() == 5
    run = {"action": "retire", "ids": ids, "step": "run"}
    response = rclient.post("/review/queues/quality/bulk/", run, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200 and "Retired 5 notes." in body and "Undo all 5" in body
    assert body.count('hx-swap-oob="outerHTML"') == 5 and "queue-changed" in response["HX-Trigger"]
    assert not Note.objects.filter(pk__in=ids, is_active=True).exists()
    groups = {e.after["group"] for e in NoteEvent.objects.filter(note_id__in=ids, action="retire")}
    assert len(groups) == 1
    event = NoteEvent.objects.filter(note_id__in=ids, action="retire").last()
    undone = rclient.post(f"/review/events/{event.pk}/undo/", {"kind": "bulk", "queue": "quality", "keys": ids}, **HTMX)
    assert undone.status_code == 200 and "Undone: 5 notes" in undone.content.decode()
    assert Note.objects.filter(pk__in=ids, is_active=True).count() == 5


def test_a_bulk_action_skips_foreign_notes_and_says_what_it_skipped(rclient, alice, bob, make_note):
    mine = flagged(make_note, alice, 2)
    theirs = flagged(make_note, bob, 1)[0]
    Note.objects.filter(pk=mine[1].pk).update(low_quality=False, low_quality_reasons=[])
    ids = [str(mine[0].pk), str(mine[1].pk), str(theirs.pk), "not-a-uuid"]
    response = rclient.post("/review/queues/quality/bulk/", {"action": "keep", "ids": ids, "step": "run"}, **HTMX)
    body = response.content.decode()
    assert "Kept 1 note." in body and "1 skipped: This note is not flagged as low quality." in body
    assert Note.objects.get(pk=theirs.pk).low_quality  # another agent's note is never touched


def test_unknown_bulk_actions_and_empty_selections_are_refused(rclient, alice, make_note):
    note = flagged(make_note, alice, 1)[0]
    assert (
        rclient.post("/review/queues/quality/bulk/", {"action": "merge", "ids": [note.pk]}, **HTMX).status_code == 422
    )
    assert rclient.post("/review/queues/quality/bulk/", {"action": "retire"}, **HTMX).status_code == 422
    assert Note.objects.get(pk=note.pk).is_active


def test_a_bulk_run_skips_a_card_that_changed_since_its_preview(rclient, alice, make_note):
    notes = flagged(make_note, alice, 2)
    ids = [str(n.pk) for n in notes]
    shown = [f"{n.pk}={n.pk}:{n.revision}" for n in notes]
    Note.objects.filter(pk=notes[1].pk).update(revision=notes[1].revision + 1)  # edited after the preview
    run = {"action": "retire", "ids": ids, "step": "run", "shown": shown}
    body = rclient.post("/review/queues/quality/bulk/", run, **HTMX).content.decode()
    assert "Retired 1 note." in body and "1 skipped: One of these notes changed since this card was drawn" in body
    assert Note.objects.get(pk=notes[1].pk).is_active


def test_bulk_same_fact_writes_each_preview(rclient, alice, make_note):
    pairs = []
    for topic in ("tea", "coffee"):
        old = make_note(alice, f"Alice drinks {topic} every morning.")
        new = make_note(alice, f"Alice drinks {topic} every morning. She adds milk.")
        pairs.append((old, new, merge_pair(old, new), merge_preview(old, new)))
    ids = [str(pair.pk) for _, _, pair, _ in pairs]
    response = rclient.post("/review/queues/merges/bulk/", {"action": "same", "ids": ids, "step": "run"}, **HTMX)
    assert "Same fact: 2 pairs merged." in response.content.decode()
    for old, new, pair, preview in pairs:
        old.refresh_from_db()
        pair.refresh_from_db()
        assert old.content == preview == f"{old.content.split('.')[0]}. She adds milk."
        assert not Note.objects.get(pk=new.pk).is_active
        assert (pair.status, pair.resolution) == (Pair.RESOLVED, "same")


def test_the_merge_card_shows_the_preview_the_diff_sources_and_similarity(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.", sources=["chat-1"])
    new = make_note(alice, "Alice drinks green tea each morning at seven.", sources=["chat-2"])
    merge_pair(old, new, similarity=0.8123)
    body = rclient.get("/review/queues/merges/").content.decode()
    assert "similarity 0.81" in body and "chat-1" in body and "chat-2" in body
    assert 'class="only-a">every</mark> morning.' in body
    assert 'class="only-b">each</mark> morning <mark class="only-b"' in body
    assert "Alice drinks green tea every morning. Alice drinks green tea each morning at seven." in body


def test_deciding_a_conflict_clears_the_quality_flag_it_raised(rclient, alice, make_note):
    a = make_note(
        alice,
        "The meeting room is on the third floor.",
        low_quality=True,
        low_quality_reasons=["pending_conflict", "too_vague"],
    )
    b = make_note(
        alice,
        "The meeting room is on the fifth floor.",
        low_quality=True,
        low_quality_reasons=["pending_conflict"],
    )
    pair = Pair.objects.create(kind=Pair.CONFLICT, older=a, newer=b, reason="floors")
    quality = rclient.get("/review/queues/quality/")
    assert quality.context["rows"] == [] and quality.context["in_conflict"] == 2
    rclient.post(f"/review/pairs/{pair.pk}/both/", **HTMX)
    a.refresh_from_db()
    b.refresh_from_db()
    assert (in_conflict(a), a.low_quality, a.low_quality_reasons) == (False, True, ["too_vague"])
    assert (in_conflict(b), b.low_quality, b.low_quality_reasons) == (False, False, [])
    assert [r["note"].pk for r in rclient.get("/review/queues/quality/").context["rows"]] == [a.pk]
    event = NoteEvent.objects.filter(note=b).order_by("-id").first()
    rclient.post(f"/review/events/{event.pk}/undo/", **HTMX)
    b.refresh_from_db()
    assert (in_conflict(b), b.low_quality, b.low_quality_reasons) == (True, True, ["pending_conflict"])


def test_conflicts_kept_in_bulk_are_one_group_and_foreign_or_bad_ids_are_skipped(rclient, alice, bob, make_note):
    pairs = [
        Pair.objects.create(
            kind=Pair.CONFLICT,
            older=make_note(alice, f"Sam enjoys soda number {i}."),
            newer=make_note(alice, f"Sam does not give up on goal {i}."),
            reason="[write] one text negates what the other states",
        )
        for i in range(2)
    ]
    theirs = Pair.objects.create(
        kind=Pair.CONFLICT,
        older=make_note(bob, "Bob has 3 cats."),
        newer=make_note(bob, "Bob has 5 cats."),
        reason="numbers",
    )
    ids = [str(p.pk) for p in pairs] + [str(theirs.pk), "x"]
    response = rclient.post("/review/queues/conflicts/bulk/", {"action": "both", "ids": ids, "step": "run"}, **HTMX)
    assert "Both true: kept both notes of 2 conflicts." in response.content.decode()
    assert Pair.objects.get(pk=theirs.pk).status == Pair.OPEN
    groups = {e.after["group"] for e in NoteEvent.objects.filter(after__op="keep_both")}
    assert len(groups) == 1 and not Note.objects.filter(agent_id="alice").waiting(Pair.CONFLICT).exists()
    refused = rclient.post("/review/queues/conflicts/bulk/", {"action": "keep_a", "ids": ids}, **HTMX)
    assert refused.status_code == 422
    rclient.post(f"/review/events/{NoteEvent.objects.filter(after__op='keep_both').first().pk}/undo/", **HTMX)
    assert Pair.objects.open().of_kind(Pair.CONFLICT).count() == 3


def test_a_merge_writes_the_reviewers_edited_text_and_keeps_the_kept_notes_category(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.", category="Research")
    new = make_note(alice, "Alice drinks green tea each morning at seven.")
    pair = merge_pair(old, new)
    edited = "Alice drinks green tea every morning at seven."
    response = rclient.post(f"/review/pairs/{pair.pk}/same/", {"text": edited}, **HTMX)
    assert response.status_code == 200
    old.refresh_from_db()
    assert (old.content, old.category) == (edited, "Research")
    # A text that no note could hold is refused; nothing changes.
    other = make_note(alice, "Alice cycles to work on Mondays.")
    waiting = merge_pair(old, other)
    assert rclient.post(f"/review/pairs/{waiting.pk}/same/", {"text": "x"}, **HTMX).status_code == 422
    assert Note.objects.get(pk=other.pk).is_active
    waiting.refresh_from_db()
    assert waiting.status == Pair.OPEN


def test_the_menu_counts_what_waits(rclient, alice, make_note):
    flagged(make_note, alice, 3)
    body = rclient.get("/review/queues/counts/", HTTP_HX_CURRENT_URL="http://testserver/review/queues/quality/", **HTMX)
    body = body.content.decode()
    assert '<a href="/review/queues/quality/" aria-current="page">' in body
    assert (
        'id="count-quality" aria-label="3 waiting">3<' in body and 'id="count-merges" aria-label="0 waiting">0<' in body
    )


def test_browser_filters_number_rows_across_pages(rclient, alice, make_note):
    for i in range(22):
        make_note(
            alice, f"Alice remembers fact {i:02d} about her garden.", created_at=timezone.now() - timedelta(minutes=i)
        )
    flagged(make_note, alice, 1)
    make_note(alice, "Alice's dentist appointment is at nine.", category="Personal", subjects=["alice"])
    page2 = rclient.get("/review/agents/alice/notes/?page=2", **HTMX).content.decode()
    assert '<ol class="notes" start="21">' in page2
    low = rclient.get("/review/agents/alice/notes/?flag=low_quality").context["page"]
    assert [n.content for n in low] == ["Alice said something vague about thing 0."]
    personal = rclient.get("/review/agents/alice/notes/?category=Personal&subject=alice").context["page"]
    assert [n.content for n in personal] == ["Alice's dentist appointment is at nine."]
    assert rclient.get("/review/agents/alice/notes/?turns=hide").context["page"].paginator.count == 0  # all are turns
    since = (timezone.localdate() + timedelta(days=1)).isoformat()
    assert rclient.get(f"/review/agents/alice/notes/?since={since}").context["page"].paginator.count == 0


def test_a_nonsense_query_says_there_is_no_strong_match(rclient, alice, make_note, drain):
    make_note(alice, "Alice's cat is called Miso and sleeps on the piano.")
    drain()
    body = rclient.get("/review/agents/alice/notes/?q=zqxv+wkrp", **HTMX).content.decode()
    assert "No strong matches" in body


def test_the_run_page_lists_counts_and_failed_calls(rclient, alice, bob):
    earlier = JobRun.objects.create(job="nightly", agent_id="alice", outcome="failed")
    run = JobRun.objects.create(
        job="nightly",
        agent_id="alice",
        outcome="partial",
        counts={"llm_failed": 11},
        finished_at=timezone.now() + timedelta(seconds=5),
    )
    LlmCall.objects.create(
        role="evolution_judge",
        tier="small",
        provider="openai",
        model="m",
        outcome="provider_error",
        error="HTTP 429",
        agent_id="alice",
        created_at=run.started_at + timedelta(seconds=1),
    )
    body = rclient.get(f"/review/runs/{run.pk}/").content.decode()
    assert "llm failed" in body and "HTTP 429" in body and 'class="outcome warn"' in body
    assert f'/review/runs/{earlier.pk}/"><span class="outcome bad">failed</span>' in body  # among the recent runs
    dashboard = rclient.get("/review/").content.decode()
    assert f"/review/runs/{run.pk}/" in dashboard and "today" in dashboard
    other = JobRun.objects.create(job="nightly", agent_id="bob", outcome="ok")
    assert rclient.get(f"/review/runs/{other.pk}/").status_code == 404


def test_history_reads_as_sentences_with_titles_and_chips(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks green tea each morning at seven.")
    rclient.post(f"/review/pairs/{merge_pair(old, new).pk}/same/", **HTMX)
    body = rclient.get(f"/review/notes/{new.pk}/").content.decode()
    # A merge decided on a pair card reads as the pair's decision (review/views/common.py PAIR_LABELS).
    assert "Pair decided: same fact, merged" in body and "merged into" in body
    assert "Alice drinks green tea every morning." in body
    assert "retire (retire)" not in body and str(old.pk) + "</" not in body


def test_retire_on_the_note_page_asks_first_and_offers_an_inline_undo(rclient, alice, make_note):
    note = make_note(alice, "Alice's cat is called Miso and sleeps on the piano.")
    page = rclient.get(f"/review/notes/{note.pk}/").content.decode()
    assert (
        'hx-confirm="Retire this note?' in page
        and page.count("Alice&#x27;s cat is called Miso and sleeps on the piano.") == 1
    )
    done = rclient.post(f"/review/notes/{note.pk}/retire/", **HTMX).content.decode()
    event = NoteEvent.objects.filter(note=note).order_by("-id").first()
    assert "Retired." in done and f"/review/events/{event.pk}/undo/" in done.split("</div>")[0]


def test_a_long_queue_offers_bigger_pages_and_keeps_the_size_across_pages(rclient, alice, make_note):
    # A night of the quality model can flag hundreds of chat turns; "Select all" acts on one page.
    for i in range(55):
        make_note(
            alice, f"Chat turn number {i} about nothing much.", low_quality=True, low_quality_reasons=["little_to_keep"]
        )
    default = rclient.get("/review/queues/quality/").content.decode()
    assert default.count('class="card') >= 20 and "cards 1–20 of 55" in default
    assert 'href="?per=50"' in default and 'href="?per=100"' in default

    bigger = rclient.get("/review/queues/quality/?per=50").content.decode()
    assert "cards 1–50 of 55" in bigger and '<strong aria-current="true">50</strong>' in bigger
    assert "per=50&amp;page=2" in bigger  # the next page keeps the size

    everything = rclient.get("/review/queues/quality/?per=100").content.decode()
    assert "cards 1–55 of 55" in everything and "next 100" not in everything

    odd = rclient.get("/review/queues/quality/?per=7")
    assert odd.status_code == 200 and "cards 1–20 of 55" in odd.content.decode()
