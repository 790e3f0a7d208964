"""/api/v1/docs renders from django-ninja's own static files, with every other host unreachable."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_the_api_docs_render_with_no_network(page, live_server):
    elsewhere: list[str] = []

    def only_this_server(route):
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:  # a CDN, fonts, anything: the machine may have no network
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_this_server)
    page.goto(f"{live_server.url}/api/v1/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "amem" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_selector(".opblock-summary-path")  # the operations list rendered from the schema
    assert "/memories/search" in page.inner_text(".swagger-ui")
    assert elsewhere == []
