"""amem_export / amem_import: lossless round trip, and files written through the full pipeline."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from engine import runtime
from engine.annotations import facts
from engine.index.store import EdgeStore
from engine.layers import core, episodes
from engine.retrieval.search import search
from engine.transfer.ingest import chunks, markdown_items
from engine.write.conversation import Turn, add_conversation
from engine.write.edit import retire_memory, update_memory
from engine.write.pipeline import add_memory
from memories.models import Agent, CoreBlock, CoreEvent, Episode, Fact, Link, Note, NoteEvent, Pair

pytestmark = pytest.mark.usefixtures("offline_llm")


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue().strip()


def _history(alice, bob) -> None:
    when = dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    add_memory("Caroline adopted a grey kitten called Mochi.", alice, subjects=["caroline"], sources=["D1:1"])
    add_memory("Caroline's kitten Mochi sleeps on the windowsill.", alice, subjects=["caroline"], occurred_at=when)
    add_memory("Bob has a golden retriever named Rex.", alice)
    add_memory("Bob has a golden retriever named Rex. Rex is four years old.", alice, sources=["D2:4"])  # fold
    add_memory("The staging database runs PostgreSQL 16 on a dedicated host.", alice)
    add_memory("The production database runs PostgreSQL 15.", alice)  # may be flagged, with its merge candidate
    shared = add_memory("The office wifi password rotates on the first Monday.", alice, scope="shared").note
    backup = add_memory("The backup job runs every night at two.", alice, note_type="knowledge").note
    update_memory(backup.pk, "The backup job runs every night at three.", alice)
    retire_memory(add_memory("Alice's old laptop is a ThinkPad X220.", alice).note.pk, alice)
    add_memory("Bob rotates the office wifi password on the first Monday of the month.", bob)
    Link.objects.get_or_create(source_id=Note.objects.get(owner="bob").pk, target_id=shared.pk)
    Agent.objects.filter(pk="alice").update(link_write_count=7)
    # The memory layers travel too: core blocks with an undone change, a closed fact, an episode.
    core.replace(alice, "user", "name", "Alice")
    core.append(alice, "user", "pets", "Mochi", subject="alice")
    core.undo(core.replace(alice, "user", "name", "Al").events.order_by("-pk").first(), "reviewer")
    facts.add_fact(alice, "Alice", "lives_in", "Berlin")
    facts.add_fact(alice, "Alice", "lives_in", "Lisbon")
    add_conversation(alice, [Turn("We decided to adopt a second kitten.", session="s1")])
    episodes.close(alice, "s1")


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity)
def test_export_then_import_into_an_empty_database_round_trips_exactly(alice, bob, store, tmp_path):
    _history(alice, bob)
    # A pair waiting for a person (offline the nightly sweep opens these; placed here directly).
    older, newer = Note.objects.filter(agent_id=alice.pk, is_active=True).order_by("created_at", "pk")[:2]
    Pair.objects.create(
        kind=Pair.MERGE, older=older, newer=newer, similarity=0.8, guess="change", reason="“a” → “b”", opened_by="rules"
    )
    pair_fields = ("kind", "older_id", "newer_id", "status", "guess", "reason", "similarity", "opened_by", "created_at")
    pairs = list(Pair.objects.order_by("newer_id", "older_id").values_list(*pair_fields))
    assert Note.objects.waiting(Pair.MERGE, as_newer=True).filter(pk=newer.pk).exists()
    assert NoteEvent.objects.filter(action="fold").exists() and Link.objects.count() >= 3
    run("amem_export", "--all", "--out-dir", str(tmp_path / "a"))
    first = {p.name: p.read_text() for p in (tmp_path / "a").iterdir()}
    counts = (Note.objects.count(), Link.objects.count(), NoteEvent.objects.count())
    layer_counts = (CoreBlock.objects.count(), CoreEvent.objects.count(), Fact.objects.count(), Episode.objects.count())
    assert layer_counts[:2] == (2, 4) and layer_counts[2] >= 2 and layer_counts[3] == 1

    Fact.objects.all().delete()
    NoteEvent.objects.all().delete()
    Link.objects.all().delete()
    Note.objects.all().delete()
    Agent.objects.all().delete()
    fresh = EdgeStore(tmp_path / "fresh-index", store.embedding_model, store.dimension)
    runtime.set_store(fresh)
    try:
        report, _ = run("amem_import", "--no-progress", *sorted(str(p) for p in (tmp_path / "a").iterdir()))
        assert "0 dangling" in report
        assert (Note.objects.count(), Link.objects.count(), NoteEvent.objects.count()) == counts
        # The pair waiting for a person travels in the export's ``pair`` lines, still open.
        assert list(Pair.objects.order_by("newer_id", "older_id").values_list(*pair_fields)) == pairs
        assert Note.objects.waiting(Pair.MERGE, as_newer=True).filter(pk=newer.pk).exists()
        assert (
            CoreBlock.objects.count(),
            CoreEvent.objects.count(),
            Fact.objects.count(),
            Episode.objects.count(),
        ) == layer_counts
        assert Fact.objects.get(object="Berlin").superseded_by == Fact.objects.get(object="Lisbon")
        assert CoreEvent.objects.filter(undone_by__isnull=False).count() == 1
        run("amem_export", "--all", "--out-dir", str(tmp_path / "b"))
        assert {p.name: p.read_text() for p in (tmp_path / "b").iterdir()} == first
        assert search("kitten Mochi windowsill", Agent.objects.get(pk="alice"), heat=False)
        assert not Note.objects.filter(index_dirty=True).exists()
    finally:
        runtime.set_store(store)
        fresh.close()


def test_an_export_carries_access_fields_history_and_vectors(alice, store):
    note = add_memory("The office wifi password rotates on the first Monday.", alice, scope="shared").note
    out, _ = run("amem_export", "--agent", "alice")
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["type"] == "amem-export" and lines[0]["agent"]["id"] == "alice"
    (exported,) = [x for x in lines if x["type"] == "note"]
    assert exported["id"] == str(note.pk)
    assert (exported["agent_id"], exported["owner"], exported["readers"], exported["writers"]) == (
        "shared",
        "alice",
        ["*"],
        ["alice"],
    )
    assert exported["embedding"] and "index_dirty" not in exported
    assert [x["action"] for x in lines if x["type"] == "event"] == ["create"]


def test_restoring_twice_changes_nothing(alice, store, tmp_path):
    add_memory("Caroline adopted a grey kitten called Mochi.", alice)
    path = tmp_path / "alice.jsonl"
    run("amem_export", "--agent", "alice", "--out", str(path))
    before = (Note.objects.count(), NoteEvent.objects.count())
    report, _ = run("amem_import", "--no-progress", str(path))
    assert "1 already present" in report and (Note.objects.count(), NoteEvent.objects.count()) == before


MEMORY_MD = """---
title: memory
---
# MEMORY.md

## Preferences
- Prefers answers in short bullet points
- Uses dark mode in every editor

## People
Caroline is a counsellor who volunteers at the LGBTQ support group.
She moved from Sweden four years ago.

```
not a memory: code
```
"""


def test_markdown_bullets_carry_their_section_and_code_is_skipped():
    items = list(markdown_items(MEMORY_MD, "MEMORY.md"))
    assert [i.text for i in items] == [
        "Preferences: Prefers answers in short bullet points",
        "Preferences: Uses dark mode in every editor",
        "Caroline is a counsellor who volunteers at the LGBTQ support group. She moved from Sweden four years ago.",
    ]


def test_a_long_paragraph_is_cut_at_sentence_ends():
    pieces = chunks(" ".join(f"Sentence number {i} is here." for i in range(200)))
    assert len(pieces) > 1 and all(len(p) <= 2000 and p.endswith(".") for p in pieces)


def test_importing_files_runs_the_pipeline_and_reports_each_outcome(alice, store, tmp_path):
    (tmp_path / "MEMORY.md").write_text(MEMORY_MD)
    (tmp_path / "2024-03-01.md").write_text("- Shipped the billing migration to production today.\n")
    rows = [
        {"text": "Alex waters the ficus every Sunday.", "subjects": ["alex"], "occurred_at": "2023-05-08T13:56"},
        {"text": "Prefers answers in short bullet points", "sources": ["m9"]},
    ]
    (tmp_path / "notes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "plain.txt").write_text("Ok.\n\nThe greenhouse heater switches on below five degrees.\n")
    report, errors = run(
        "amem_import",
        "--agent",
        "alice",
        "--no-progress",
        *(str(tmp_path / n) for n in ("MEMORY.md", "2024-03-01.md", "notes.jsonl", "plain.txt")),
    )
    assert report == "6 created, 1 folded, 0 flagged, 0 duplicate, 1 rejected"
    assert errors.startswith("rejected plain.txt:1: [quality]")
    daily = Note.objects.get(content__contains="billing migration")
    assert daily.created_at == dt.datetime(2024, 3, 1, tzinfo=dt.UTC)
    ficus = Note.objects.get(content__contains="ficus")
    assert ficus.subjects == ["alex"] and ficus.created_at == dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    assert set(NoteEvent.objects.values_list("actor", flat=True)) == {"import"}


def test_import_refuses_missing_files_and_an_unknown_agent(alice, store, tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        run("amem_import", "--agent", "alice", str(tmp_path / "missing.md"))
    (tmp_path / "a.txt").write_text("The greenhouse heater switches on below five degrees.\n")
    with pytest.raises(CommandError, match="no active agent"):
        run("amem_import", "--agent", "ghost", str(tmp_path / "a.txt"))
    assert Note.objects.count() == 0
