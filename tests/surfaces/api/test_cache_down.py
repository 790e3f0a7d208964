"""A rate-limit cache (AMEM_CACHE_URL) that is down: 503 naming a backing service, never a 500;
/healthz says so, /healthz?deep says which."""

from __future__ import annotations

import socket

import pytest
from django.core.cache import caches
from django.test import Client


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when this returns: nothing listens there


@pytest.fixture
def cache_down(settings):
    url = f"redis://127.0.0.1:{closed_port()}/0"
    settings.AMEM_CACHE_URL = url
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
    yield url
    caches["default"].close()


def test_every_api_call_is_a_503_when_the_cache_is_down(as_alice, cache_down, caplog):
    for response in (
        as_alice.get("/memories/count"),
        as_alice.post("/memories/episodic", {"text": "The spare key is under the blue flower pot."}),
        as_alice.get("/core"),
        as_alice.get("/key"),
    ):
        assert response.status_code == 503, response.content
        assert response.json() == {"detail": "a backing service is unavailable"}
    assert "the rate-limit cache (AMEM_CACHE_URL) is unavailable" in caplog.text


def test_a_bad_key_is_a_503_too_when_the_cache_is_down(db, cache_down):
    response = Client().get("/api/v1/memories/count", headers={"Authorization": "Bearer amem_wrong"})
    assert response.status_code == 503


def test_healthz_is_503_and_deep_names_the_cache(db, cache_down):
    plain = Client().get("/healthz")
    assert plain.status_code == 503 and plain.json()["cache"] is False
    deep = Client().get("/healthz?deep").json()
    assert deep["deep"]["cache"] == {"kind": "redis", "ok": False}
    assert deep["problems"][0].startswith("the rate-limit cache (AMEM_CACHE_URL) is unavailable")


def test_healthz_is_200_with_a_cache_that_answers(db, settings, redis_client):
    from tests.conftest import REDIS_URL

    settings.AMEM_CACHE_URL = REDIS_URL
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    body = Client().get("/healthz").json()
    assert body["cache"] is True
