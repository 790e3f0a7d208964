"""The review app's browser fixtures (Debian's chromium through Playwright), shared."""

from tests.review.browser.conftest import chromium, page  # noqa: F401
