"""The import gaps a seed user runs into: memory-engine's _meta, openclaw-amem's created_at, an exit
code that says records were skipped, links restored when a fixed record is imported again, SQLite
workspaces, an existing core block of the same name, and mem0's exports."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from engine.transfer.seed_import import MEM0_NS, archival_note_id, episode_note_id
from memories.models import CoreBlock, CoreEvent, Episode, Fact, Link, Note
from tests.surfaces.test_seed_import import BAD, POINTS, A, B, dump, payload, workspace

pytestmark = pytest.mark.usefixtures("offline_llm")


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("amem_import", *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue().strip()


def test_memory_engine_meta_is_not_a_core_block(tmp_path, store, make_agent):
    make_agent("alex")
    folder = workspace(tmp_path)
    core = folder / "memory" / "core.json"
    core.write_text(json.dumps({"_meta": {"version": 1, "updated_at": "2026-04-01"}, **json.loads(core.read_text())}))
    (folder / "memory" / "archival.jsonl").write_text(
        json.dumps({"id": "arch-1", "ts": "2026-04-01T10:00:00Z", "content": "Alex prefers aisle seats."}) + "\n"
    )
    out, _ = run("--format", "memory-engine", "--agent", "alex", str(folder))
    assert "core.json _meta: skipped: memory-engine's metadata, not a memory" in out
    assert sorted(CoreBlock.objects.values_list("name", flat=True)) == ["identity", "preferences"]


def test_openclaw_amem_created_at_is_read_when_timestamp_is_absent(tmp_path, db, store):
    old = payload(A, "Alex drinks black filter coffee every morning.")
    del old["timestamp"]
    old["created_at"] = "2025-11-03T07:15:00Z"
    run("--format", "openclaw-amem", str(dump(tmp_path, [old, POINTS[2]])))
    assert Note.objects.get(pk=A).created_at == dt.datetime(2025, 11, 3, 7, 15, tzinfo=dt.UTC)


def test_skipped_records_make_the_import_exit_non_zero(tmp_path, db, store):
    path = dump(tmp_path, [*POINTS, BAD])
    with pytest.raises(CommandError, match=r"1 record\(s\) skipped .*run the same import again"):
        run("--format", "openclaw-amem", "--dry-run", str(path))
    assert not Note.objects.exists()
    with pytest.raises(CommandError, match=r"1 record\(s\) skipped"):
        run("--format", "openclaw-amem", str(path))
    assert Note.objects.count() == 4  # the good records are in
    out, err = run("--format", "openclaw-amem", str(dump(tmp_path, POINTS)))  # all good: exit 0, no error
    assert "imported 0 note(s) (4 already present)" in out and "skipped" not in err


def test_reimporting_a_fixed_record_restores_the_links_into_it(tmp_path, db, store):
    broken_b = {**POINTS[1], "content": ""}  # B is skipped: A's link to it has nothing to point at
    with pytest.raises(CommandError):
        run("--format", "openclaw-amem", str(dump(tmp_path, [POINTS[0], broken_b])))
    assert not Link.objects.exists()
    run("--format", "openclaw-amem", str(dump(tmp_path, [POINTS[0], POINTS[1]])))  # B fixed
    assert set(Link.objects.values_list("source_id", "target_id")) == {
        (uuid.UUID(A), uuid.UUID(B)),  # from the note imported the first time
        (uuid.UUID(B), uuid.UUID(A)),
    }


def sqlite_workspace(tmp_path: Path) -> Path:
    """A workspace after memory-engine's memory_migrate: memory/memory.sqlite (its lib/store-sqlite.js schema)."""
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    db = sqlite3.connect(memory / "memory.sqlite")
    db.executescript(
        """
        CREATE TABLE archival (id TEXT PRIMARY KEY, ts TEXT, content TEXT NOT NULL, entity TEXT DEFAULT '',
          tags TEXT DEFAULT '[]', importance INTEGER DEFAULT 5, last_accessed TEXT, access_count INTEGER DEFAULT 0,
          source TEXT DEFAULT '', updated_at TEXT);
        CREATE TABLE graph (id TEXT PRIMARY KEY, subject TEXT NOT NULL, relation TEXT NOT NULL, object TEXT NOT NULL,
          ts TEXT, source TEXT);
        CREATE TABLE episodes (id TEXT PRIMARY KEY, ts TEXT, summary TEXT NOT NULL, decisions TEXT DEFAULT '[]',
          mood TEXT DEFAULT '', topics TEXT DEFAULT '[]', participants TEXT DEFAULT '[]', duration_minutes INTEGER);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        """
    )
    db.execute(
        "INSERT INTO archival VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            "arch-1",
            "2026-04-01T10:00:00.000Z",
            "Dr. Patel is Alex's family doctor in Edmonton.",
            "health",
            '["doctor"]',
            8,
            "2026-04-20T08:00:00.000Z",
            3,
            "",
            None,
        ),
    )
    db.execute(
        "INSERT INTO archival VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            "arch-2",
            "2026-04-02T10:00:00.000Z",
            "Alex renews the car insurance every March.",
            "",
            "not json",
            5,
            None,
            0,
            "",
            None,
        ),
    )
    db.execute(
        "INSERT INTO graph VALUES (?,?,?,?,?,?)",
        ("tri-1", "Alex", "has_doctor", "Dr. Patel", "2026-04-01T10:00:00Z", "arch-1"),
    )
    db.execute(
        "INSERT INTO episodes VALUES (?,?,?,?,?,?,?,?)",
        (
            "ep-1",
            "2026-04-05T10:00:00.000Z",
            "Planned the trip.",
            '["aisle seats"]',
            "calm",
            '["travel"]',
            '["Alex"]',
            12,
        ),
    )
    db.commit()
    db.close()
    (memory / "core.json").write_text(json.dumps({"_meta": {"version": 1}, "identity": {"name": "Alex"}}))
    return memory.parent


def test_a_sqlite_workspace_is_imported(tmp_path, store, make_agent):
    make_agent("alex")
    with pytest.raises(CommandError, match=r"1 record\(s\) skipped"):
        run("--format", "memory-engine", "--agent", "alex", str(sqlite_workspace(tmp_path)))
    doctor = Note.objects.get(pk=archival_note_id("arch-1"))
    assert (doctor.tags, doctor.retrieval_count) == (["health", "doctor"], 3)
    assert doctor.created_at == dt.datetime(2026, 4, 1, 10, tzinfo=dt.UTC)
    assert not Note.objects.filter(pk=archival_note_id("arch-2")).exists()  # its tags are not JSON
    fact = Fact.objects.get()
    assert (fact.subject, fact.relation, fact.object, fact.sources) == (
        "Alex",
        "has_doctor",
        "Dr. Patel",
        [str(doctor.pk)],
    )
    assert Episode.objects.get().note_id == episode_note_id("ep-1")
    assert "Decisions: aisle seats" in Note.objects.get(pk=episode_note_id("ep-1")).content
    assert list(CoreBlock.objects.values_list("name", flat=True)) == ["identity"]


def test_a_sqlite_workspace_reports_its_source(tmp_path, db):
    out = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "amem_import",
            "--format",
            "memory-engine",
            "--agent",
            "alex",
            "--dry-run",
            str(sqlite_workspace(tmp_path)),
            stdout=out,
            stderr=StringIO(),
        )
    assert "memory-engine (memory.sqlite (SQLite)): 2 record(s) read: 1 to import, 1 skipped" in out.getvalue()
    assert not Note.objects.exists()


@pytest.mark.parametrize("choice", ["keep", "replace", "rename"])
def test_core_conflict_keep_replace_or_rename(choice, tmp_path, store, make_agent):
    agent = make_agent("alex")
    CoreBlock.objects.create(agent=agent, subject="", name="identity", value={"name": "Alexandra"})
    folder = workspace(tmp_path)
    (folder / "memory" / "archival.jsonl").write_text(
        json.dumps({"id": "arch-1", "ts": "2026-04-01T10:00:00Z", "content": "Alex prefers aisle seats."}) + "\n"
    )
    out, err = run("--format", "memory-engine", "--agent", "alex", "--core-conflict", choice, str(folder))
    blocks = dict(CoreBlock.objects.filter(agent=agent).values_list("name", "value"))
    imported = {"name": "Alex", "location": "Edmonton"}
    if choice == "keep":
        assert blocks["identity"] == {"name": "Alexandra"} and "identity_imported" not in blocks
        assert "core block 'identity': the agent already has one; kept it" in err
    elif choice == "replace":
        assert blocks["identity"] == imported
        event = CoreEvent.objects.get(block__name="identity")
        assert (event.action, event.before, event.after) == ("import", {"name": "Alexandra"}, imported)
        assert "core block 'identity': replaced" in out
    else:
        assert blocks["identity"] == {"name": "Alexandra"} and blocks["identity_imported"] == imported
        assert "core block imported as 'identity_imported'" in out
    assert blocks["preferences"] == {"seat": "aisle"}


def test_core_conflict_takes_only_its_three_choices(tmp_path, db):
    with pytest.raises(CommandError):
        run("--format", "memory-engine", "--agent", "alex", "--core-conflict", "merge", str(workspace(tmp_path)))


MEM0 = [
    {
        "id": "892db2ae-06d9-49e5-8b3e-585ef9b85b8e",
        "memory": "Alex is a vegetarian and avoids dairy.",
        "hash": "0f2b6a1c",
        "metadata": {"source": "chat"},
        "categories": ["food", "health"],
        "created_at": "2025-09-14T18:03:22.512345-07:00",
        "updated_at": None,
        "user_id": "alex",
    },
    {
        "id": "m-2",
        "memory": "Alex's sister Maria lives in Porto.",
        "created_at": "2025-10-01T09:00:00Z",
        "user_id": "alex",
    },
    {"id": "m-3", "memory": "", "user_id": "alex"},
]


@pytest.mark.parametrize("shape", ["get_all", "export", "array", "jsonl"])
def test_mem0_memories_are_imported(shape, tmp_path, store, make_agent):
    make_agent("alex")
    path = tmp_path / "mem0.json"
    if shape == "get_all":
        path.write_text(json.dumps({"results": MEM0}))
    elif shape == "export":
        path.write_text(json.dumps({"memories": MEM0}))
    elif shape == "array":
        path.write_text(json.dumps(MEM0))
    else:
        path.write_text("\n".join(json.dumps(m) for m in MEM0) + "\n")
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match=r"1 record\(s\) skipped"):
        call_command("amem_import", "--format", "mem0", "--agent", "alex", str(path), stdout=out, stderr=err)
    assert "mem0: 3 record(s) read: 2 to import, 1 skipped" in out.getvalue()
    assert "memory must be a non-empty string" in err.getvalue()
    veg = Note.objects.get(pk="892db2ae-06d9-49e5-8b3e-585ef9b85b8e")
    assert (veg.owner, veg.tags, veg.sources) == (
        "alex",
        ["food", "health"],
        ["mem0:892db2ae-06d9-49e5-8b3e-585ef9b85b8e"],
    )
    assert veg.created_at == dt.datetime(2025, 9, 15, 1, 3, 22, 512345, tzinfo=dt.UTC)
    assert veg.events.get(action="import").after["original"]["user_id"] == "alex"
    maria = Note.objects.get(pk=uuid.uuid5(MEM0_NS, "m-2"))
    assert maria.content == "Alex's sister Maria lives in Porto."
    assert not Note.objects.filter(index_dirty=True).exists()  # indexed with this installation's model


def test_mem0_needs_an_agent_and_a_file(tmp_path, db):
    with pytest.raises(CommandError, match="--agent is required for --format mem0"):
        run("--format", "mem0", str(tmp_path / "x.json"))
    with pytest.raises(CommandError, match="give mem0's JSON file"):
        run("--format", "mem0", "--agent", "alex", str(tmp_path / "missing.json"))
