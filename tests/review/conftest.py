"""Review app personas: a staff user, a reviewer granted alice, notes made through the engine."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from engine.write.pipeline import add_episodic
from memories.models import Note

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def _after_commit_hooks_stay_unrun(django_capture_on_commit_callbacks) -> None:
    """Review tests check that an action leaves its notes dirty for the index (the after-commit
    sync is theirs to run: test_an_action_schedules_the_index_sync); searches call ``drain``."""


@pytest.fixture
def reviewer(alice):
    user = get_user_model().objects.create_user("rita", password="pw-for-tests")
    alice.reviewers.add(user)
    return user


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("sam", password="pw-for-tests", is_staff=True)


@pytest.fixture
def rclient(client, reviewer):
    """A client logged in as the reviewer of alice (not of bob)."""
    client.force_login(reviewer)
    return client


@pytest.fixture
def make_note(store, offline_llm):
    """A note stored through the engine's episodic path, then given extra fields directly."""

    def make(agent, text: str, **fields) -> Note:
        note = add_episodic(text, agent)
        if fields:
            Note.objects.filter(pk=note.pk).update(**fields)
        note.refresh_from_db()
        return note

    return make
