"""The CLI finds the running server on its own: the server records its address in the data dir."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.live.conftest import start_server
from testsupport.live_server import LiveServer

pytestmark = pytest.mark.slow


def test_commands_reach_a_server_on_any_port_without_being_told(tmp_path_factory):
    server = start_server(tmp_path_factory, "sqlite")
    try:
        record = json.loads((server.data_dir / "server.json").read_text())
        assert record["url"] == server.url
        server.call("POST", "/api/v1/memories", {"text": "The boiler service is booked for March"})
        assert "AMEM_SERVER_URL" not in server.env()
        out = server.manage("amem_search", "--agent", "alice", "boiler service")
        assert "boiler service is booked" in out
    finally:
        server.drop()
    assert not (server.data_dir / "server.json").exists()  # removed when the server stopped


def test_the_server_leaves_no_control_socket_in_the_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    server = start_server(tmp_path_factory, "sqlite", env_extra={"HOME": str(home), "XDG_RUNTIME_DIR": ""})
    try:
        assert server.call("GET", "/healthz", key=None).status == 200
        server.kill9()  # the crash a restart follows: nothing may be left behind in the home either
    finally:
        server.drop()
    assert not (home / ".gunicorn").exists()
    assert [p.name for p in home.iterdir()] in ([], [".cache"])


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_once_healthz_says_ready_writes_wait_for_nothing_and_the_ready_line_is_printed(tmp_path_factory, backend):
    # /healthz answers 200 only once the embedding model a write needs is loaded (before, 503
    # "starting"): the first write came 12-19 s after "ready" when ready meant "answers a search".
    server = start_server(tmp_path_factory, backend)
    try:
        assert f"amem: ready on {server.url}" in server.read_log()
        texts = [f"Concurrent first write number {i} after the start" for i in range(8)]
        with ThreadPoolExecutor(8) as pool:
            started = time.monotonic()
            answers = list(pool.map(lambda text: server.call("POST", "/api/v1/memories", {"text": text}), texts))
            took = time.monotonic() - started
        assert [a.status for a in answers] == [201] * 8, [a.body for a in answers]
        assert took < 30, f"8 first writes took {took:.1f} s"
        out = server.manage("amem_search", "--agent", "alice", "concurrent first write")
        assert "Concurrent first write" in out
    finally:
        server.drop()


def test_the_readmes_first_example_answers_right_after_the_ready_line(tmp_path_factory):
    # README: `make run` (migrate, amem_bootstrap, the server), then, once it prints
    # "amem: ready on …": manage.py amem_search --agent demo "what coffee does alex like".
    server = LiveServer(tmp_path_factory.mktemp("live-readme"), backend="sqlite")
    try:
        server.data_dir.mkdir(parents=True, exist_ok=True)
        server.manage("migrate", "--verbosity", "0")
        server.manage("amem_bootstrap")
        server.start(until_ready_line=True)
        out = server.manage("amem_search", "--agent", "demo", "what coffee does alex like")
        assert "flat white" in out.lower(), out
    finally:
        server.drop()
