"""Schemathesis against a live server: every route of /api/v1/openapi.json, valid and
invalid inputs generated from the schema, on SQLite and PostgreSQL.

Bounded: EXAMPLES cases per route and generation mode, no shrinking (a failing case is reported
as found), a timeout per request. Checked: no 5xx answer, and every documented answer matches
its schema. Failures are collected over all routes, so one run names every broken route.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("AMEM_FUZZ_EXAMPLES", "30"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def _fuzz(server, operation, mode: GenerationMode, sent: list) -> None:
    headers = {"Authorization": f"Bearer {server.key}"}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,  # the same cases every run: a failure is reproducible
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case) -> None:
        response = case.call_and_validate(base_url=server.url, headers=headers, checks=CHECKS, timeout=60)
        sent.append(response.status_code)

    run()


def test_no_route_answers_a_server_error_or_breaks_its_schema(server):
    schema = schemathesis.openapi.from_url(f"{server.url}/api/v1/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 9  # every agent route (the local ones are not in the schema)
    failures, sent = [], []
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _fuzz(server, operation, mode, sent)
            except Exception as exc:  # a check failure or a transport error: collected, reported below
                failures.append(f"{operation.label} ({mode.value}): {str(exc)[:1500]}")
    assert failures == [], "\n\n".join(failures)
    # The cases reached the routes: valid ones were answered 2xx, invalid ones 4xx.
    assert len(sent) >= 5 * len(operations)
    assert any(200 <= s < 300 for s in sent) and any(400 <= s < 500 for s in sent)
    assert "Traceback" not in server.read_log()
