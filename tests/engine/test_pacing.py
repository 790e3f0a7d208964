"""Heavy work pauses between chunks only while other requests of the process are in flight."""

from __future__ import annotations

import pytest

from engine import pacing


@pytest.fixture
def pauses(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(pacing.time, "sleep", slept.append)
    clock = iter(range(0, 1000, 1))  # each reading of the clock is 1 ms after the one before
    monkeypatch.setattr(pacing.time, "perf_counter", lambda: next(clock) / 1000)
    return slept


def test_outside_heavy_work_nothing_ever_pauses(pauses):
    pacing.request_started()
    try:
        assert list(pacing.chunks(list(range(10)), 3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    finally:
        pacing.request_finished()
    assert pauses == []


def test_heavy_work_alone_does_not_pause(pauses):
    pacing.request_started()  # the heavy request itself
    try:
        with pacing.heavy():
            assert pacing.others_in_flight() == 0
            list(pacing.chunks(list(range(10)), 3))
    finally:
        pacing.request_finished()
    assert pauses == []


def test_heavy_work_pauses_as_long_as_its_chunk_ran_while_another_request_runs(pauses, monkeypatch):
    pacing.request_started()  # the heavy request
    pacing.request_started()  # another agent's search
    try:
        with pacing.heavy():
            assert pacing.others_in_flight() == 1
            pacing.give_way()
    finally:
        pacing.request_finished()
        pacing.request_finished()
    # heavy() read the clock at 0 ms, give_way at 1 ms: one pause of the 1 ms that ran since.
    assert pauses == [pytest.approx(0.001 * pacing.PAUSE_SHARE)]
    monkeypatch.setattr(pacing, "PAUSE_SHARE", 1000.0)
    pacing.request_started()
    pacing.request_started()
    try:
        with pacing.heavy():
            pacing.give_way()
    finally:
        pacing.request_finished()
        pacing.request_finished()
    assert pauses[-1] == pacing.MAX_PAUSE_S  # never longer: heavy work cannot be starved
