"""amem_import --format conversation: each turn an episodic note with the previous turn as context."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from engine.errors import IndexLocked
from engine.retrieval.search import Ranking, search
from engine.write import conversation
from memories.models import EVERYONE, SHARED_AGENT, Link, Note, NoteEvent

QUESTION = {"text": "Where did you go camping last summer?", "speaker": "Melanie", "session": 1, "id": "D1:1"}
ANSWER = {"text": "We went to the mountains near the lake.", "speaker": "Caroline", "session": 1, "id": "D1:2"}
FOLLOW_UP = {"text": "Did the kids enjoy sleeping in the tent?", "speaker": "Melanie", "session": 1, "id": "D1:3"}
NEXT_WEEK = {"text": "I started a new painting this week.", "speaker": "Caroline", "session": 2, "id": "D2:1"}


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("amem_import", "--format", "conversation", "--no-progress", *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue().strip()


def write(path, *rows: dict | str) -> str:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return str(path)


def by_source() -> dict[str, Note]:
    return {n.sources[0]: n for n in Note.objects.all()}


def link_pairs() -> set[tuple[str, str]]:
    names = {n.pk: n.sources[0] for n in Note.objects.all()}
    return {(names[a], names[b]) for a, b in Link.objects.values_list("source_id", "target_id")}


def test_each_turn_gets_the_previous_turn_of_its_session_and_neighbours_are_linked(alice, store, tmp_path):
    report, errors = run("--agent", "alice", write(tmp_path / "chat.jsonl", QUESTION, ANSWER, FOLLOW_UP, NEXT_WEEK))
    assert report == "4 created, 0 folded, 0 flagged, 0 duplicate, 0 rejected" and errors == ""
    notes = by_source()
    assert notes["D1:2"].context == "Melanie: Where did you go camping last summer?"
    assert notes["D1:3"].context == "Caroline: We went to the mountains near the lake."
    assert notes["D1:1"].context == "" and notes["D2:1"].context == ""  # each session starts afresh
    assert link_pairs() == {("D1:1", "D1:2"), ("D1:2", "D1:1"), ("D1:2", "D1:3"), ("D1:3", "D1:2")}
    assert set(NoteEvent.objects.values_list("actor", flat=True)) == {"import"}


def test_the_speaker_prefixes_the_content_and_the_id_becomes_the_source(alice, store, tmp_path):
    narration = {"text": "The storm knocked the power out for a day."}
    run("--agent", "alice", write(tmp_path / "chat.jsonl", ANSWER, narration))
    assert Note.objects.get(sources=["D1:2"]).content == "Caroline: We went to the mountains near the lake."
    assert Note.objects.get(sources=[]).content == "The storm knocked the power out for a day."


def test_occurred_at_dates_the_note_and_a_time_without_offset_is_utc(alice, store, tmp_path):
    rows = [
        {**QUESTION, "occurred_at": "2023-05-08T13:56:00Z"},
        {**ANSWER, "occurred_at": "2023-05-08T15:58:00+02:00"},
        {**FOLLOW_UP, "occurred_at": "2023-05-08T14:01:00"},
    ]
    run("--agent", "alice", write(tmp_path / "chat.jsonl", *rows))
    notes = by_source()
    assert notes["D1:1"].created_at == dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    assert notes["D1:2"].created_at == dt.datetime(2023, 5, 8, 13, 58, tzinfo=dt.UTC)
    assert notes["D1:3"].created_at == dt.datetime(2023, 5, 8, 14, 1, tzinfo=dt.UTC)


def test_a_short_turn_is_rejected_but_still_is_the_context_of_the_next_one(alice, store, tmp_path):
    yes = {"text": "Yes!", "speaker": "Caroline", "session": 1, "id": "D1:2"}  # "Caroline: Yes!" is long enough
    answer = {"text": "We camped by the lake for a whole week.", "speaker": "Caroline", "session": 1, "id": "D1:3"}
    report, errors = run("--agent", "alice", write(tmp_path / "chat.jsonl", QUESTION, yes, answer))
    assert report == "2 created, 0 folded, 0 flagged, 0 duplicate, 1 rejected"
    assert errors.startswith("rejected chat.jsonl:2: [quality]")
    notes = by_source()
    assert set(notes) == {"D1:1", "D1:3"}
    assert notes["D1:3"].context == "Caroline: Yes!"
    # The stored neighbours are linked across the gap, so the walk still finds the question.
    assert link_pairs() == {("D1:1", "D1:3"), ("D1:3", "D1:1")}


def test_the_turn_after_an_overlong_one_is_stored_with_the_context_cut_to_the_limit(alice, store, tmp_path):
    paste = {"text": "word " * 6_000, "speaker": "Caroline", "session": 1, "id": "D1:2"}  # 30,000 characters
    report, errors = run("--agent", "alice", write(tmp_path / "chat.jsonl", QUESTION, paste, FOLLOW_UP))
    assert report == "2 created, 0 folded, 0 flagged, 0 duplicate, 1 rejected"
    assert errors.startswith("rejected chat.jsonl:2:")
    context = by_source()["D1:3"].context
    assert len(context) <= 20_000 and context.endswith("word word")


@pytest.mark.parametrize(
    "bad, message",
    [
        ("{not json", "chat.jsonl:2: not a JSON object"),
        ({"speaker": "Caroline", "id": "D1:2"}, 'chat.jsonl:2: a turn needs a non-empty "text"'),
        ({**ANSWER, "occurred_at": "last Tuesday"}, "chat.jsonl:2: 'last Tuesday' is not an ISO 8601 time"),
        ({**ANSWER, "subjects": "caroline"}, "chat.jsonl:2: subjects must be a list of strings"),
    ],
)
def test_a_malformed_line_stops_the_import_before_anything_is_written(alice, store, tmp_path, bad, message):
    good = write(tmp_path / "first.jsonl", NEXT_WEEK)
    with pytest.raises(CommandError, match=message):
        run("--agent", "alice", good, write(tmp_path / "chat.jsonl", QUESTION, bad, FOLLOW_UP))
    assert not Note.objects.exists() and not Link.objects.exists()


def test_scope_and_subject_options_apply_to_every_turn(alice, store, tmp_path):
    path = write(tmp_path / "chat.jsonl", {**QUESTION, "subjects": ["melanie"]}, ANSWER)
    run("--agent", "alice", "--scope", "shared", "--subject", "caroline", "--subject", "melanie", path)
    notes = by_source()
    assert notes["D1:1"].subjects == ["melanie", "caroline"]
    assert notes["D1:2"].subjects == ["caroline", "melanie"]
    assert {(n.agent_id, n.owner, tuple(n.readers)) for n in notes.values()} == {(SHARED_AGENT, "alice", (EVERYONE,))}


def test_turns_are_private_by_default(alice, store, tmp_path):
    run("--agent", "alice", write(tmp_path / "chat.jsonl", QUESTION))
    assert Note.objects.get().agent_id == "alice" and Note.objects.get().readers == ["alice"]


def test_without_a_session_label_each_file_is_one_session(alice, store, tmp_path):
    unlabelled = [{k: v for k, v in row.items() if k != "session"} for row in (QUESTION, ANSWER, NEXT_WEEK)]
    run("--agent", "alice", write(tmp_path / "a.jsonl", *unlabelled[:2]), write(tmp_path / "b.jsonl", unlabelled[2]))
    assert by_source()["D1:2"].context == "Melanie: Where did you go camping last summer?"
    assert by_source()["D2:1"].context == ""  # the previous line is in another file
    assert link_pairs() == {("D1:1", "D1:2"), ("D1:2", "D1:1")}


def test_a_transcript_longer_than_one_call_is_chained_across_chunks(alice, store, tmp_path, monkeypatch):
    monkeypatch.setattr(conversation, "MAX_TURNS", 2)
    rows = [{"text": f"This is turn number {i} of the chat.", "id": f"t{i}"} for i in range(5)]
    report, _ = run("--agent", "alice", write(tmp_path / "chat.jsonl", *rows))
    assert report.startswith("5 created,")
    notes = by_source()
    assert [notes[f"t{i}"].context for i in range(1, 5)] == [f"This is turn number {i} of the chat." for i in range(4)]
    chain = {(f"t{i}", f"t{i + 1}") for i in range(4)}
    assert link_pairs() == chain | {(b, a) for a, b in chain}


class TurnsAlone(Ranking):
    context_span = 0


def test_the_imported_turns_are_indexed_with_their_context(alice, store, tmp_path, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        run("--agent", "alice", write(tmp_path / "chat.jsonl", QUESTION, ANSWER, NEXT_WEEK))
    assert not Note.objects.filter(index_dirty=True).exists()
    # "mountains near the lake" never says "camping": its context, the question, does.
    # Turns alone (none carried around a match): D1:2 must rank on its own indexed context.
    hits = search("camping trip", alice, limit=2, heat=False, links=False, ranking=TurnsAlone())
    assert "D1:2" in {s for r in hits for s in r.note.sources}


def test_a_locked_index_stops_the_import_before_anything_is_written(alice, store, tmp_path, monkeypatch):
    def locked(name):
        raise IndexLocked("the embedded index is open in another process.")

    monkeypatch.setattr(store, "ensure_collection", locked)
    with pytest.raises(CommandError, match="Stop the server for a bulk import"):
        run("--agent", "alice", write(tmp_path / "chat.jsonl", QUESTION, ANSWER))
    assert not Note.objects.exists()


def test_an_import_leaves_the_index_optimized(alice, store, tmp_path, monkeypatch):
    # The batches of a bulk import leave many small segments behind; a search reads every one.
    optimized: list[bool] = []
    monkeypatch.setattr(type(store), "optimize", lambda self: optimized.append(True))
    run("--agent", "alice", write(tmp_path / "chat.jsonl", QUESTION, ANSWER))
    assert optimized == [True]
