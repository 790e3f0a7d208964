"""Login lockout (django-axes), API rate limits (429 + Retry-After), CSP and cookie settings."""

from __future__ import annotations

import datetime as dt
import hashlib
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import F
from django.test import Client

from memories.models import ApiKey
from tests.conftest import REDIS_URL

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fresh_counts():
    cache.clear()
    yield
    cache.clear()


# Long, so that however slow the machine, the lockout never ends by itself during a test; the one
# test that needs the window to pass dates the failures back instead of waiting for it.
COOLOFF = dt.timedelta(hours=1)


@pytest.fixture
def lockout(settings):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 10
    settings.AXES_COOLOFF_TIME = COOLOFF


def _login(client: Client, password: str):
    return client.post("/review/login/", {"username": "rita", "password": password})


def test_ten_wrong_logins_lock_the_account_out_even_for_the_right_password(lockout, db):
    get_user_model().objects.create_user("rita", password="the-right-one")
    client = Client()
    answers = [_login(client, f"guess-{i}").status_code for i in range(10)]
    assert answers[:9] == [200] * 9  # the form again, with its error
    assert answers[9] == 429
    assert _login(client, "the-right-one").status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_right_login_works_again_once_the_window_passes(lockout, db):
    get_user_model().objects.create_user("rita", password="the-right-one")
    client = Client()
    for i in range(10):
        _login(client, f"guess-{i}")
    assert _login(client, "the-right-one").status_code == 429
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - COOLOFF - dt.timedelta(seconds=1))
    assert _login(client, "the-right-one").status_code == 302
    assert client.session["_auth_user_id"]


def test_a_lockout_is_per_user_name(lockout, db):
    users = get_user_model().objects
    users.create_user("rita", password="the-right-one")
    users.create_user("sam", password="sams-password")
    client = Client()
    for i in range(10):
        _login(client, f"guess-{i}")
    assert client.post("/review/login/", {"username": "sam", "password": "sams-password"}).status_code == 302


def test_an_api_key_over_its_rate_gets_429_with_retry_after_and_other_keys_do_not(settings, alice, bob):
    settings.AMEM_API_RATE = "5/m"
    _, alices = ApiKey.issue(alice)
    _, bobs = ApiKey.issue(bob)
    client = Client()

    def count(key):
        return client.get("/api/v1/memories/count", headers={"Authorization": f"Bearer {key}"})

    assert [count(alices).status_code for _ in range(5)] == [200] * 5
    refused = count(alices)
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert count(bobs).status_code == 200


def test_bad_keys_from_one_address_end_in_429_and_then_even_a_good_key_waits(settings, alice):
    settings.AMEM_API_BAD_KEY_RATE = "5/m"
    _, good = ApiKey.issue(alice)
    client = Client()

    def count(key):
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return client.get("/api/v1/memories/count", headers=headers)

    answers = [count(f"amem_wrong_{i}").status_code for i in range(5)] + [count(None).status_code]
    assert answers == [401] * 5 + [429]
    refused = count(good)
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    # Another address is not affected.
    assert (
        client.get(
            "/api/v1/memories/count", headers={"Authorization": f"Bearer {good}"}, REMOTE_ADDR="10.0.0.9"
        ).status_code
        == 200
    )


def test_the_review_app_is_served_with_a_content_security_policy(client, db):
    policy = client.get("/review/login/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("style-src-attr")[0]
    assert "frame-ancestors 'none'" in policy


def _django_process(code: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` run in a fresh Python process whose settings come from ``env`` alone."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={"DJANGO_SETTINGS_MODULE": "amem_site.settings", "PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _setting(name: str, **env: str) -> str:
    done = _django_process(
        f"import django, os; django.setup(); from django.conf import settings; print(settings.{name})", **env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_cookies_are_secure_behind_an_https_proxy_and_not_on_the_plain_http_demo(tmp_path):
    data = str(tmp_path)
    assert _setting("SESSION_COOKIE_SECURE", AMEM_DATA_DIR=data) == "False"
    assert _setting("SESSION_COOKIE_SECURE", AMEM_DATA_DIR=data, AMEM_BEHIND_HTTPS_PROXY="1") == "True"
    assert _setting("CSRF_COOKIE_SECURE", AMEM_DATA_DIR=data, AMEM_BEHIND_HTTPS_PROXY="1") == "True"
    assert _setting("SECURE_PROXY_SSL_HEADER", AMEM_DATA_DIR=data, AMEM_BEHIND_HTTPS_PROXY="1") == (
        "('HTTP_X_FORWARDED_PROTO', 'https')"
    )


def test_a_malformed_rate_stops_start_up_naming_the_variable(tmp_path):
    done = _django_process("import django; django.setup()", AMEM_DATA_DIR=str(tmp_path), AMEM_API_RATE="lots")
    assert done.returncode != 0 and "AMEM_API_RATE='lots'" in done.stderr


def test_with_a_cache_url_every_process_sees_a_keys_count(settings, alice, tmp_path, redis_client):
    prefix = f"amem-test-{uuid.uuid4().hex[:8]}"  # what AMEM_QUEUE_NAME={prefix} makes the key prefix
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        }
    }
    settings.AMEM_API_RATE = "3/m"
    _, key = ApiKey.issue(alice)
    headers = {"Authorization": f"Bearer {key}"}
    try:
        answers = [Client().get("/api/v1/memories/count", headers=headers).status_code for _ in range(4)]
        assert answers == [200, 200, 200, 429]
        # Another web process, configured by the environment alone, reads the same count.
        throttle_key = "throttle_key_" + hashlib.sha256(key.encode()).hexdigest()
        code = (
            "import django; django.setup(); from django.core.cache import cache; "
            f"print(len(cache.get({throttle_key!r}) or []))"
        )
        done = _django_process(code, AMEM_DATA_DIR=str(tmp_path), AMEM_CACHE_URL=REDIS_URL, AMEM_QUEUE_NAME=prefix)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "3"  # the three requests let through; the refused one is not counted
    finally:
        for stale in redis_client.scan_iter(f"{prefix}:*"):
            redis_client.delete(stale)
