"""gunicorn's access log (the real server, a log file): every request is there, no subject's name or query text."""

from __future__ import annotations

import uuid

import pytest

from tests.live.conftest import BACKENDS, start_server


@pytest.fixture(scope="module", params=BACKENDS)
def logged_server(request, tmp_path_factory):
    log = tmp_path_factory.mktemp("access") / "access.log"
    live = start_server(tmp_path_factory, request.param, env_extra={"AMEM_ACCESS_LOG": str(log)})
    yield live, log
    live.drop()


def test_the_access_log_holds_no_subject_name_and_no_query_text(logged_server):
    server, log = logged_server
    name, words = f"Dorotea{uuid.uuid4().hex[:8]}", f"flat{uuid.uuid4().hex[:8]}"
    text = f"{name} keeps the spare key of the {words} under the pot."
    assert server.call("POST", "/api/v1/memories/episodic", {"text": text, "subjects": [name]}).status == 201
    assert server.call("GET", f"/api/v1/episodes?query={words}").status == 200
    assert server.call("GET", f"/api/v1/core?subject={name}").status == 200
    assert server.call("GET", f"/api/v1/facts?subject={name}").status in (200, 400)
    assert server.call("DELETE", f"/api/v1/subjects/{name}?purge=true").status == 200
    server.stop()  # flushes the log
    lines = log.read_text().splitlines()
    assert any('"DELETE /api/v1/subjects/~?purge=true HTTP/1.1" 200' in line for line in lines), lines
    assert any("/api/v1/episodes?query=~" in line for line in lines), lines
    assert not [line for line in lines if name in line or words in line]
