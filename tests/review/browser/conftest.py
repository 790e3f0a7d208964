"""Browser tests: pytest-playwright driving Debian's chromium against pytest-django's live_server.

``playwright install`` cannot download its own browser on this machine kind, so the
launch points at /usr/bin/chromium (installed by .ci/run when missing).
"""

from __future__ import annotations

import os
import shutil

import pytest

# Playwright's sync API runs an event loop in the test thread; the ORM calls in tests are still sync.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not os.path.exists(CHROMIUM):
        pytest.fail("chromium is missing: apt-get install -y chromium fonts-wqy-microhei (.ci/run does this)")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
        ],
    }


@pytest.fixture
def logged_in(page, live_server, reviewer):
    """A browser page logged in as the reviewer of alice, through the login form."""
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/review/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "pw-for-tests")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/review/")
    return page
