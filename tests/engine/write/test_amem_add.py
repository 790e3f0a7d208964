"""amem_add runs the full pipeline; --episodic keeps the cheap path."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memories.models import LlmCall, Note


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue().strip()


def test_amem_add_constructs_and_reports_the_outcome(alice, store):
    note_id, report = run("amem_add", "--agent", "alice", "--type", "knowledge", "HTTP 429 means too many requests.")
    note = Note.objects.get(pk=note_id)
    assert note.keywords and note.note_type == "knowledge"
    assert report.startswith("created")
    again, report = run("amem_add", "--agent", "alice", "HTTP 429 means too many requests.")
    assert again == note_id and report.startswith("duplicate")


def test_amem_add_episodic_asks_no_model(alice, store):
    note_id, _ = run("amem_add", "--agent", "alice", "--episodic", "The player opened the north gate.")
    assert Note.objects.get(pk=note_id).keywords == []
    assert not LlmCall.objects.exists()


def test_amem_add_episodic_keeps_the_given_context(alice, store):
    note_id, _ = run("amem_add", "--agent", "alice", "--episodic", "--context", "Where is the key?", "Under the mat.")
    assert Note.objects.get(pk=note_id).context == "Where is the key?"


def test_a_context_without_episodic_is_refused(alice, store):
    with pytest.raises(CommandError, match="--context goes with --episodic"):
        run("amem_add", "--agent", "alice", "--context", "Where is the key?", "The key is under the mat.")
    assert not Note.objects.exists()
