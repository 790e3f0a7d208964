"""The dashboard counts notes when they were written, reads in line on a phone; and a fresh
bootstrap (what `make run` calls) leaves one example in each queue to decide and undo."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from engine.write.pipeline import add_memory
from memories.models import SHARED_AGENT, Agent, JobRun, Note

pytestmark = pytest.mark.browser


def _log_in(page, live_server, username: str) -> None:
    page.goto(f"{live_server.url}/review/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw-for-tests")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/review/")
    page.wait_for_load_state("networkidle")


def test_dated_writes_count_as_written_today(logged_in, live_server, alice, store, offline_llm):
    page = logged_in
    long_ago = timezone.now() - timedelta(days=900)
    for i, city in enumerate(["Lisbon", "Porto", "Braga"]):
        add_memory(
            f"On a spring day Alice visited {city} with her brother for reason {i}.", alice, occurred_at=long_ago
        )
    page.goto(f"{live_server.url}/review/")
    row = page.locator("#agent-alice")
    expect(row.locator("td:nth-child(3)")).to_have_text("3")
    expect(row.locator(".trend .day").last).to_contain_text("3")


def test_agent_ids_do_not_wrap_and_phone_numbers_sit_in_line_with_their_labels(page, live_server, alice, make_note):
    get_user_model().objects.create_user("sam", password="pw-for-tests", is_staff=True)
    make_note(alice, "Alice keeps her bicycle in the garden shed.")
    Note.objects.create(agent_id=SHARED_AGENT, owner="alice", content="The office closes at six.", content_hash="x")
    for agent in ("alice", SHARED_AGENT):  # a full "last job runs" column squeezes the others
        for job in ("quality_scan", "contradiction_sweep", "consolidation", "pending_merge", "episode_close"):
            JobRun.objects.create(job=job, agent_id=agent, outcome="partial")
    _log_in(page, live_server, "sam")
    for width in (1280, 1024, 800):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{live_server.url}/review/")
        link = page.locator(f"#agent-{SHARED_AGENT} td:first-child a")
        expect(link).to_have_text("shared")
        assert link.evaluate("(a) => a.getClientRects().length") == 1, width  # one line, not "share d"
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/review/")
    # The middle of each label's text and of its number's text, a line apart at most 2 px.
    offsets = page.evaluate(
        """() => Array.from(document.querySelectorAll(".agent-card dt")).map((dt) => {
             const middle = (el) => { const r = document.createRange(); r.selectNodeContents(el);
                                      const box = r.getBoundingClientRect(); return (box.top + box.bottom) / 2; };
             return Math.abs(middle(dt) - middle(dt.nextElementSibling)); })"""
    )
    assert offsets and max(offsets) <= 2, offsets


def test_a_fresh_bootstrap_leaves_one_card_in_each_queue_to_decide_and_undo(page, live_server, store, offline_llm):
    call_command("amem_bootstrap", "--admin-password", "pw-for-tests", stdout=StringIO())
    user = get_user_model().objects.create_user("newcomer", password="pw-for-tests")
    Agent.objects.get(pk="demo").reviewers.add(user)
    _log_in(page, live_server, "newcomer")
    for queue, decide in (
        ("conflicts", "Newer replaces older"),
        ("merges", "Same fact"),
        ("quality", "Retire"),
    ):
        page.goto(f"{live_server.url}/review/queues/{queue}/")
        expect(page.locator(f"#count-{queue}")).to_have_text("1")
        cards = page.locator("#queue .card")
        expect(cards).to_have_count(1)
        card = cards.first
        card.locator(f"button:has-text('{decide}')").click()
        expect(card.locator("[role=status]")).to_be_visible()
        expect(page.locator("#queue-empty")).to_be_visible()
        expect(page.locator(f"#count-{queue}")).to_have_text("0")
        card.locator("button:has-text('Undo')").click()
        expect(page.locator("#queue .card:not(.done)")).to_have_count(1)
        expect(page.locator(f"#count-{queue}")).to_have_text("1")
    # The conflict is a change of fact, the merge a fact said twice, the low-quality note vague.
    page.goto(f"{live_server.url}/review/queues/conflicts/")
    expect(page.locator("#queue .card")).to_contain_text("Alex moved to York")
    page.goto(f"{live_server.url}/review/queues/merges/")
    expect(page.locator("#queue .card .guess")).to_contain_text("Same fact said twice?")
    page.goto(f"{live_server.url}/review/queues/quality/")
    expect(page.locator("#queue .card .why")).to_contain_text("Vague")
