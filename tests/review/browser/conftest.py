"""Browser tests: Playwright driving Debian's chromium against pytest-django's live_server.

``playwright install`` cannot download its own browser on this machine kind, so the
launch points at /usr/bin/chromium (installed by .ci/run when missing).

The browser lives for one module, not the session: Playwright's sync API keeps an
asyncio loop running in the main thread while it is started, and any later test that
calls ``asyncio.run`` (the MCP tests) would fail under it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

# While Playwright runs, the ORM calls in these tests happen beside its event loop (still sync).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Generous waits: every wait is on a condition (an element, a URL, a text), so a loaded machine
# only makes it take longer; the defaults (5 s for expect) failed at a load of 12-28.
TIMEOUT_MS = 60_000
expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    if not os.path.exists(CHROMIUM):
        pytest.fail("chromium is missing: apt-get install -y chromium fonts-wqy-microhei (.ci/run does this)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    """A fresh browser context (own cookies) per test."""
    context = chromium.new_context()
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.set_default_navigation_timeout(TIMEOUT_MS)
    yield page
    context.close()


@pytest.fixture
def logged_in(page, live_server, reviewer):
    """A browser page logged in as the reviewer of alice, through the login form."""
    page.goto(f"{live_server.url}/review/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "pw-for-tests")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/review/")
    # The menu fetches its counts after load: let that finish, so a test starts from a quiet page.
    # (The live server and the test share no connection: the test database is a file,
    # testsupport/settings.py, so a request still running at teardown waits, never collides.)
    page.wait_for_load_state("networkidle")
    return page
