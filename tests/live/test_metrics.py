"""GET /metrics on a running server, scraped after real traffic: every family has figures.

The server runs in LLM mode against the fake provider (testsupport/llm_server.py), so model
calls carry tokens and a price; a job runs in its own process, as the worker's would, and
still shows up, since those figures come from the database.
"""

from __future__ import annotations

import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.live.conftest import BACKENDS, start_server
from testsupport.llm_server import FakeLLMServer

pytestmark = pytest.mark.slow

TOKEN = "scrape-token-for-tests"


@pytest.fixture(scope="module", params=BACKENDS)
def served(request, tmp_path_factory):
    with FakeLLMServer() as llm:
        llm.always("{}")  # answers every role; unusable replies fall back to the offline rules, tokens still spent
        llm.reply_json({"pairs": [{"a": 0, "b": 1, "reason": "two homes"}]}, role="conflict_scan")
        server = start_server(
            tmp_path_factory,
            request.param,
            env_extra={
                "AMEM_LLM_PROVIDER": "openai",
                "AMEM_LLM_BASE_URL": llm.openai_base_url,
                "OPENAI_API_KEY": "sk-test",
                "AMEM_METRICS_TOKEN": TOKEN,
                "AMEM_MODEL_PRICES": "fast=1/2,strong=3/15",
            },
        )
        try:
            yield server
        finally:
            server.drop()


def scrape(server, token: str | None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(server.url + "/metrics", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def samples(text: str) -> dict[str, list]:
    found: dict[str, list] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append(sample)
    return found


def total(found: dict[str, list], name: str, **labels: str) -> float:
    return sum(s.value for s in found.get(name, []) if all(s.labels.get(k) == v for k, v in labels.items()))


def test_metrics_need_the_token_or_a_staff_session(served):
    assert scrape(served, None)[0] == 401
    assert scrape(served, "wrong")[0] == 401
    assert scrape(served, TOKEN)[0] == 200


def test_every_family_has_figures_after_traffic(served):
    for text in ["I live in Porto.", "I moved to Lisbon last spring.", "Ana works at Farfetch as a designer."]:
        assert served.call("POST", "/api/v1/memories", {"text": text}).status == 201
    assert served.call("POST", "/api/v1/memories/episodic", {"text": "we talked about the trip"}).status == 201
    assert served.call("POST", "/api/v1/memories/search", {"query": "where do I live"}).status == 200
    assert served.call("POST", "/api/v1/memories/search", {"query": ""}).status == 400
    # The nightly sweep's one scripted finding opens the conflict the queue gauge counts.
    served.manage("amem_jobs", "run", "contradiction_sweep", "--agent", "alice", "--no-progress")
    served.manage("amem_jobs", "run", "quality_scan", "--agent", "alice", "--no-progress")

    status, text = scrape(served, TOKEN)
    assert status == 200
    found = samples(text)
    route = "api/v1/memories"
    assert total(found, "amem_http_requests_total", method="POST", status="201") >= 4
    assert total(found, "amem_http_requests_total", status="400") >= 1
    assert any(route in s.labels["route"] for s in found["amem_http_requests_total"])
    assert total(found, "amem_http_request_seconds_count") >= 6
    assert total(found, "amem_search_seconds_count", outcome="ok") >= 1
    assert total(found, "amem_search_seconds_count", outcome="InvalidInput") >= 1
    assert total(found, "amem_write_seconds_count", path="memory", outcome="ok") == 3
    assert total(found, "amem_write_seconds_count", path="episodic", outcome="ok") == 1
    assert "amem_outbox_notes" in found and "amem_outbox_oldest_seconds" in found
    assert total(found, "amem_review_queue", agent="alice", queue="conflicts") == 1
    assert "amem_task_queue" in found
    assert total(found, "amem_job_runs_total", job="quality_scan", outcome="ok") >= 1
    assert total(found, "amem_llm_calls_total", tier="fast") > 0
    tokens_in = total(found, "amem_llm_tokens_total", tier="fast", direction="in")
    tokens_out = total(found, "amem_llm_tokens_total", tier="fast", direction="out")
    assert tokens_in > 0 and tokens_out > 0
    assert total(found, "amem_llm_cost_usd_total", tier="fast") == pytest.approx((tokens_in + 2 * tokens_out) / 1e6)
    # /metrics does not count itself
    assert not any(s.labels["route"] == "metrics" for s in found["amem_http_requests_total"])
