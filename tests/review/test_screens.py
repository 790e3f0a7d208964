"""Dashboard, memory browser and note detail: full pages for browsers, partials for htmx."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from engine.annotations import facts
from memories.models import JobRun, Link, Note, Pair
from tests.review.conftest import HTMX

pytestmark = pytest.mark.django_db


def test_the_dashboard_counts_per_agent(rclient, alice, make_note):
    a = make_note(alice, "Alice keeps her bicycle in the garden shed.")
    b = make_note(alice, "Alice drinks green tea every morning.")
    make_note(alice, "Alice used to live in Lyon a long time ago.", is_active=False)
    dated = make_note(alice, "Alice wrote this note three days ago.", created_at=timezone.now() - timedelta(days=3))
    Pair.objects.create(kind=Pair.MERGE, older=dated, newer=b)
    Pair.objects.create(kind=Pair.CONFLICT, older=a, newer=b, reason="r")
    JobRun.objects.create(job="quality_scan", agent_id="alice", outcome="ok")
    response = rclient.get("/review/")
    row = response.context["rows"][0]
    # b waits in Conflicts, not in Pending merges (one place per note): the columns count what the queues list.
    # Written today: all four, the one dated three days back too (a dated write keeps the date it tells of).
    assert (row["agent_id"], row["active"], row["pending"], row["conflicts"], row["today"]) == ("alice", 3, 0, 1, 4)
    assert [d["n"] for d in row["trend"]] == [0, 0, 0, 0, 0, 0, 4]
    assert [r.job for r in row["jobs"]] == ["quality_scan"]
    assert b"<html" in response.content and b"quality_scan" in response.content
    assert b'<span class="outcome ok">ok</span> quality_scan' in response.content
    partial = rclient.get("/review/", **HTMX)
    assert b"<html" not in partial.content and b"agent-alice" in partial.content


def test_the_browser_lists_newest_first_with_status_filter_and_pages(rclient, alice, make_note):
    for i in range(23):
        make_note(
            alice,
            f"Alice remembers numbered fact {i:02d} about her garden.",
            created_at=timezone.now() - timedelta(minutes=i),
        )
    make_note(alice, "Alice no longer owns the red umbrella.", is_active=False)
    first = rclient.get("/review/agents/alice/notes/")
    notes = list(first.context["page"])
    assert len(notes) == 20 and notes[0].content.endswith("fact 00 about her garden.")
    second = rclient.get("/review/agents/alice/notes/?page=2", **HTMX)
    assert b"<html" not in second.content and b"fact 22" in second.content
    retired = rclient.get("/review/agents/alice/notes/?status=retired", **HTMX)
    assert b"red umbrella" in retired.content and b"fact 00" not in retired.content


def test_search_shows_a_labelled_rounded_breakdown_and_highlights_without_heating(rclient, alice, make_note, drain):
    note = make_note(alice, "Alice's cat is called Miso and sleeps on the piano.")
    make_note(alice, "The quarterly report is due on Friday afternoon.")
    drain()
    response = rclient.get("/review/agents/alice/notes/?q=cat+called+Miso", **HTMX)
    assert response.status_code == 200 and b"<html" not in response.content
    results = response.context_data["results"]
    assert results[0].note == note and results[0].via == "match"
    body = response.content.decode()
    assert "similarity" in body and "Meaning (dense vectors)" in body and "Words (BM25)" in body and "Fused" in body
    assert "<mark>cat</mark>" in body and "<mark>Miso</mark>" in body
    assert re.search(r"\d\.\d{5,}", body) is None  # every number rounded for reading
    note.refresh_from_db()
    assert note.retrieval_count == 0


def test_search_results_leave_out_notes_of_agents_not_reviewed(rclient, alice, bob, make_note, drain):
    make_note(bob, "Shared fact: the cafeteria closes at three on Fridays.", readers=["*"])
    drain()  # indexed, so an empty result means the filter left it out
    response = rclient.get("/review/agents/alice/notes/?q=cafeteria+closes")
    assert response.context["results"] == []


def test_the_note_page_shows_fields_sources_links_and_history(rclient, alice, make_note):
    note = make_note(alice, "Alice's cat is called Miso and sleeps on the piano.", sources=["msg-17"])
    other = make_note(alice, "Miso the cat was adopted from a shelter in 2021.")
    Link.objects.create(source=note, target=other)
    Link.objects.create(source=other, target=note)
    response = rclient.get(f"/review/notes/{note.pk}/")
    body = response.content.decode()
    assert "msg-17" in body and f"/review/notes/{other.pk}/" in body and "create" in body
    assert len(response.context["out_links"]) == len(response.context["in_links"]) == 1
    partial = rclient.get(f"/review/notes/{note.pk}/", **HTMX)
    assert b"<html" not in partial.content and b'id="note-main"' in partial.content


def test_the_graph_shows_two_hops(rclient, alice, make_note):
    a, b, c, d = (make_note(alice, f"Graph node number {i} about Alice's garden.") for i in range(4))
    Link.objects.create(source=a, target=b)
    Link.objects.create(source=b, target=c)
    Link.objects.create(source=c, target=d)
    response = rclient.get(f"/review/notes/{a.pk}/graph/")
    hops = {n["id"]: n["hop"] for n in response.context["nodes"]}
    assert hops == {a.pk: 0, b.pk: 1, c.pk: 2}
    assert b"<svg" in response.content


def test_the_graph_lists_the_facts_read_from_its_notes(rclient, alice, make_note):
    a, b, far = (make_note(alice, f"Graph node {i}: Alice tends her garden at home.") for i in range(3))
    Link.objects.create(source=a, target=b)
    facts.add_fact(alice, "Alice", "lives_in", "Porto", sources=[str(b.pk)])
    facts.add_fact(alice, "Alice", "likes", "roses", sources=[str(far.pk)])  # not in this graph
    body = rclient.get(f"/review/notes/{a.pk}/graph/").content.decode()
    assert "Facts read from these notes" in body
    assert "lives_in" in body and "Porto" in body and "roses" not in body


def test_queues_list_what_waits(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks green tea each morning at seven.")
    Pair.objects.create(kind=Pair.MERGE, older=old, newer=new, similarity=0.8)
    make_note(alice, "Alice maybe likes jazz, not sure at all.", low_quality=True, low_quality_reasons=["too_vague"])
    make_note(
        alice,
        "TODO tomorrow: call the plumber about the sink.",
        ephemeral=True,
        created_at=timezone.now() - timedelta(days=9),
    )
    Note.objects.create(agent_id="alice", owner="alice", content="ok", content_hash="x")
    merges = rclient.get("/review/queues/merges/").content.decode()
    assert "each morning at seven" in merges and "0.80" in merges
    quality = rclient.get("/review/queues/quality/").context["rows"]
    assert sorted(r["reasons"][0] for r in quality) == ["expired_ephemeral", "too_short", "too_vague"]
    assert b"No open conflicts" in rclient.get("/review/queues/conflicts/").content


def test_the_quality_queue_says_how_many_notes_its_nightly_budget_left_for_later(rclient, alice, bob, make_note):
    from memories.models import JobRun

    make_note(
        alice, "Alice maybe likes jazz, not sure at all.", low_quality=True, low_quality_reasons=["little_to_keep"]
    )
    assert "wait for later nights" not in rclient.get("/review/queues/quality/").content.decode()
    JobRun.objects.create(job="quality_scan", agent_id="alice", outcome="ok", counts={"over_budget": 50})
    JobRun.objects.create(
        job="quality_scan", agent_id="alice", outcome="ok", counts={"over_budget": 37}
    )  # the last night
    JobRun.objects.create(job="quality_scan", agent_id="alice", outcome="failed", counts={"over_budget": 99})
    JobRun.objects.create(
        job="quality_scan", agent_id="bob", outcome="ok", counts={"over_budget": 500}
    )  # not the reviewer's
    body = rclient.get("/review/queues/quality/").content.decode()
    assert "37 more notes the quality model finds little to keep in wait for later nights" in body
    assert "at most 10 new a night per agent" in body


def test_no_queue_page_shows_template_syntax(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks green tea every morning at seven.")
    Pair.objects.create(kind=Pair.MERGE, older=old, newer=new)
    b = make_note(alice, "Alice drinks black coffee every morning.")
    Pair.objects.create(kind=Pair.CONFLICT, older=old, newer=b, reason="r")
    make_note(alice, "Something about the thing we discussed.", low_quality=True, low_quality_reasons=["vague"])
    for queue in ("merges", "conflicts", "quality"):
        body = rclient.get(f"/review/queues/{queue}/").content.decode()
        assert "{#" not in body and "{%" not in body and "{{" not in body, queue


def test_a_queue_filtered_to_a_note_that_is_not_an_id_shows_nothing(rclient, alice, make_note):
    old = make_note(alice, "Alice drinks green tea every morning.")
    new = make_note(alice, "Alice drinks green tea every morning at seven.")
    Pair.objects.create(kind=Pair.MERGE, older=old, newer=new)
    for queue in ("merges", "conflicts", "quality"):
        response = rclient.get(f"/review/queues/{queue}/?note=not-an-id")
        assert response.status_code == 200 and response.context["total"] == 0, queue
    assert rclient.get("/review/queues/merges/").context["total"] == 1
