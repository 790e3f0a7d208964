"""Who may read /metrics: a scraper with the token, a staff user; nobody else."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db


def test_a_staff_session_reads_metrics(client):
    client.force_login(User.objects.create_user("op", password="x", is_staff=True))
    response = client.get("/metrics")
    assert response.status_code == 200
    assert b"amem_outbox_notes" in response.content


def test_a_signed_in_non_staff_user_is_refused(client):
    client.force_login(User.objects.create_user("reviewer", password="x"))
    assert client.get("/metrics").status_code == 403


def test_the_token_is_checked_when_one_is_set(client, settings):
    settings.AMEM_METRICS_TOKEN = "s3cret"
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cre").status_code == 401


def test_no_token_configured_means_no_bearer_access(client, settings):
    settings.AMEM_METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 401
