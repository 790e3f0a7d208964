"""engine/locking.py: which errors are retried, how often, and never inside a caller's transaction."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, OperationalError, transaction

from engine import locking


class Cause(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def database_error(kind: type[Exception], sqlstate: str) -> Exception:
    try:
        raise kind("lost a race") from Cause(sqlstate)
    except kind as exc:
        return exc


def flaky(failures: list[Exception]):
    calls = []

    @locking.retry_on_conflict
    def run() -> str:
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return "done"

    return run, calls


@pytest.fixture(autouse=True)
def _no_pause(monkeypatch):
    monkeypatch.setattr(locking.time, "sleep", lambda _s: None)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("sqlstate", ["40P01", "40001"])
def test_a_deadlock_or_serialization_failure_is_run_again(sqlstate):
    run, calls = flaky([database_error(OperationalError, sqlstate)] * 2)
    assert run() == "done" and len(calls) == 3


@pytest.mark.django_db(transaction=True)
def test_it_gives_up_after_a_few_attempts():
    run, calls = flaky([database_error(OperationalError, "40P01")] * 10)
    with pytest.raises(OperationalError):
        run()
    assert len(calls) == locking.ATTEMPTS


@pytest.mark.django_db(transaction=True)
def test_other_database_errors_are_not_retried():
    run, calls = flaky([database_error(IntegrityError, "23505")])
    with pytest.raises(IntegrityError):
        run()
    assert len(calls) == 1


@pytest.mark.django_db(transaction=True)
def test_inside_a_callers_transaction_the_error_is_the_callers():
    run, calls = flaky([database_error(OperationalError, "40P01")])
    with pytest.raises(OperationalError), transaction.atomic():
        run()
    assert len(calls) == 1


def test_key_numbers_are_stable_signed_64_bit():
    number = locking.key_number("alice", "sam", "lives_in")
    assert number == locking.key_number("alice", "sam", "lives_in")
    assert number != locking.key_number("alice", "sam", "works_at")
    assert -(2**63) <= number < 2**63
