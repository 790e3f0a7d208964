"""/healthz?deep tells the truth: the outbox, an index short of notes, the broker, the worker."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from engine.write.pipeline import add_episodic
from memories.models import WorkerBeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def worker_seen(db):
    from engine.maintenance.heartbeat import broker_kind

    return WorkerBeat.objects.create(name="host:1", broker=broker_kind(), broker_ok=True)


def deep(client):
    response = client.get("/healthz?deep")
    return response.status_code, response.json()


def test_deep_is_ok_with_an_indexed_database_a_broker_and_a_worker(client, store, alice, drain, worker_seen):
    add_episodic("The printer on the second floor needs toner", alice)
    drain()
    status, body = deep(client)
    assert status == 200, body["problems"]
    assert body["deep"]["index"] == {"notes": 1, "points": 1, "missing": 0}
    assert body["deep"]["outbox"]["dirty"] == 0
    assert body["deep"]["broker"]["ok"] is True and "pid" in body["deep"]["index_owner"]


def test_an_index_short_of_notes_is_reported_with_the_fix(client, store, alice, drain, worker_seen):
    note = add_episodic("The printer on the second floor needs toner", alice)
    drain()
    for name in store.collections():
        store.delete(name, [str(note.pk)])  # as if the index folder had been lost
    status, body = deep(client)
    assert status == 503 and body["deep"]["index"]["missing"] == 1
    assert any("amem_reindex --recreate" in p for p in body["problems"])
    assert client.get("/healthz").status_code == 200  # the cheap probe stays cheap


def test_a_broker_that_is_down_is_reported(client, store, settings, worker_seen):
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "redis": "redis://127.0.0.1:1/0"}  # nothing listens there
    WorkerBeat.objects.create(name="host:2", broker="redis", broker_ok=True)
    status, body = deep(client)
    assert status == 503
    assert body["deep"]["broker"] == {"kind": "redis", "ok": False, "detail": body["deep"]["broker"]["detail"]}
    assert any("Redis broker is unreachable" in p for p in body["problems"])


def test_a_worker_not_seen_recently_is_reported(client, store, worker_seen):
    WorkerBeat.objects.filter(pk=worker_seen.pk).update(seen_at=timezone.now() - dt.timedelta(minutes=10))
    status, body = deep(client)
    assert status == 503 and any("no worker seen" in p for p in body["problems"])


def test_a_worker_whose_broker_failed_is_reported(client, store, worker_seen):
    WorkerBeat.objects.filter(pk=worker_seen.pk).update(broker_ok=False, detail="the Redis broker is unreachable: x")
    status, body = deep(client)
    assert status == 503 and any("the worker reports" in p for p in body["problems"])
