"""amem_import --format openclaw-amem / memory-engine: the seed plugins' stores, with their ids, links,
history and access fields; bad records reported with their position and skipped whole; --dry-run."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from engine.retrieval.search import search
from engine.transfer.seed_import import archival_note_id, episode_note_id
from memories.models import Agent, Link, Note, NoteEvent, Pair

pytestmark = pytest.mark.usefixtures("offline_llm")

A, B, C, D = (str(uuid.UUID(int=i)) for i in (0xA, 0xB, 0xC, 0xD))
MAY = "2026-05-01T08:30:00.000Z"


def run(*args: str) -> tuple[str, str]:
    """The import's output; skipped records end it with an error (exit 1), appended to err here
    (tests/surfaces/test_seed_import_gaps.py checks the exit itself)."""
    out, err = StringIO(), StringIO()
    try:
        call_command("amem_import", *args, stdout=out, stderr=err)
    except CommandError as exc:
        if "record(s) skipped" not in str(exc):
            raise
        err.write(f"\nexit 1: {exc}")
    return out.getvalue().strip(), err.getvalue().strip()


def payload(note_id: str, content: str, **fields) -> dict:
    """A point payload as openclaw-amem stores it."""
    return {
        "id": note_id,
        "content": content,
        "keywords": ["coffee"],
        "tags": ["preference"],
        "context": "What Alex drinks.",
        "links": [],
        "timestamp": MAY,
        "agent_id": "main",
        "hash": "d41d8cd98f00b204e9800998ecf8427e",
        "retrieval_count": 0,
        "last_accessed": MAY,
        "evolution_history": "[]",
        "category": "Personal",
        "is_active": True,
        "note_type": "memory",
        "topics": [],
        "pending_merge": False,
        "conflict": False,
        "subjects": [],
        "ephemeral": False,
        "low_quality": False,
        "owner": "main",
        "readers": ["main"],
        "writers": ["main"],
        **fields,
    }


HISTORY = [
    {
        "triggeredBy": D,
        "triggeredAt": "2026-05-02T10:00:00.000Z",
        "oldContext": "What Alex drinks.",
        "newContext": "Alex's morning coffee habit.",
        "oldTags": ["preference"],
        "newTags": ["preference", "morning"],
        "action": "update_neighbor",
    },
    {
        "triggeredBy": "crud",
        "triggeredAt": "2026-05-03T10:00:00.000Z",
        "oldContext": "Alex's morning coffee habit.",
        "newContext": "Alex's morning coffee habit.",
        "oldTags": [],
        "newTags": [],
        "oldContent": "Alex drinks flat whites.",
        "action": "crud_update",
    },
]

POINTS = [
    payload(
        A,
        "Alex drinks black filter coffee every morning.",
        links=[B, "not-a-note-id"],
        retrieval_count=7,
        last_accessed="2026-06-01T09:00:00.000Z",
        evolution_history=json.dumps(HISTORY),
        subjects=["alex"],
    ),
    payload(
        B,
        "Alex stopped drinking coffee in June.",
        links=[A],
        conflict=True,
        conflicts_with=[A],
        conflict_reason="coffee every morning vs stopped drinking coffee",
        evolution_type="CONFLICT",
        subjects=["alex"],
    ),
    payload(C, "The office wifi password rotates monthly.", agent_id="shared", readers=["*"], category="System"),
    payload(
        D,
        "Kubernetes liveness probes restart a container that stops answering.",
        agent_id="writer",
        owner="writer",
        readers=["writer"],
        writers=["writer"],
        note_type="knowledge",
        topics=["kubernetes", "ops"],
        is_active=False,
        category="Technical",
    ),
]
BAD = payload("not-a-uuid", "A record whose id the seed never wrote.")


def dump(tmp_path: Path, lines: list) -> Path:
    path = tmp_path / "amem_notes.jsonl"
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def as_points(payloads: list[dict]) -> list[dict]:
    return [{"id": p["id"], "payload": p} for p in payloads]


def check_imported() -> None:
    """Every field the seed stored, as the import must have kept it."""
    a, b, c, d = (Note.objects.get(pk=x) for x in (A, B, C, D))
    assert a.content == "Alex drinks black filter coffee every morning."
    assert (a.retrieval_count, a.last_accessed) == (7, dt.datetime(2026, 6, 1, 9, tzinfo=dt.UTC))
    assert a.created_at == dt.datetime(2026, 5, 1, 8, 30, tzinfo=dt.UTC)
    assert (a.keywords, a.tags, a.context, a.category, a.subjects) == (
        ["coffee"],
        ["preference"],
        "What Alex drinks.",
        "Personal",
        ["alex"],
    )
    assert (a.owner, a.readers, a.writers, a.agent_id) == ("main", ["main"], ["main"], "main")
    assert a.sources == [f"openclaw-amem:{A}"]
    assert b.evolution_type == "CONFLICT"
    assert (c.agent_id, c.owner, c.readers, c.category) == ("shared", "main", ["*"], "System")
    assert (d.agent_id, d.note_type, d.topics, d.is_active) == ("writer", "knowledge", ["kubernetes", "ops"], False)
    assert set(Link.objects.values_list("source_id", "target_id")) == {(a.pk, b.pk), (b.pk, a.pk)}
    history = list(a.events.exclude(action="import").order_by("created_at"))
    assert [e.action for e in history] == ["update_neighbor", "crud_update"]
    assert history[0].before == {"context": "What Alex drinks.", "tags": ["preference"]}
    assert history[0].after["context"] == "Alex's morning coffee habit." and history[0].actor == f"seed:{D}"
    assert history[1].before["content"] == "Alex drinks flat whites."
    assert a.events.get(action="import").after["original"]["hash"] == "d41d8cd98f00b204e9800998ecf8427e"
    # The seed's conflict (B conflicts with A) waits for a person in the conflict queue.
    pair = Pair.objects.get()
    assert (pair.kind, pair.newer_id, pair.older_id, pair.status, pair.reason) == (
        Pair.CONFLICT,
        b.pk,
        a.pk,
        Pair.OPEN,
        "coffee every morning vs stopped drinking coffee",
    )
    assert set(Note.objects.waiting(Pair.CONFLICT).values_list("pk", flat=True)) == {a.pk, b.pk}
    assert set(Agent.objects.values_list("pk", flat=True)) >= {"main", "writer"}


def test_a_dump_is_imported_with_links_history_access_fields_and_the_bad_record_reported(tmp_path, db, store):
    path = dump(tmp_path, [*POINTS[:2], BAD, "{not json", *POINTS[2:]])
    out, err = run("--format", "openclaw-amem", str(path))
    assert "6 record(s) read: 4 to import, 2 skipped" in out
    assert "imported 4 note(s) (0 already present), 2 link(s)" in out
    assert "skipped amem_notes.jsonl line 3: id is not a UUID: 'not-a-uuid'" in err
    assert "skipped amem_notes.jsonl line 4: not JSON" in err
    assert f"note {A}: link to 'not-a-note-id' is not a note id (dropped)" in err
    check_imported()
    assert not Note.objects.filter(content__contains="never wrote").exists()
    # Indexed with this installation's model, and found by a search of the right agent.
    assert not Note.objects.filter(index_dirty=True).exists()
    main = Agent.objects.get(pk="main")
    found = [r.note.pk for r in search("black filter coffee every morning", main, limit=3)]
    assert uuid.UUID(A) in found and uuid.UUID(D) not in found  # D is retired (and another agent's)


def test_importing_again_adds_nothing_and_keeps_counts(tmp_path, db, store):
    path = dump(tmp_path, POINTS)
    run("--format", "openclaw-amem", str(path))
    counts = (Note.objects.count(), Link.objects.count(), NoteEvent.objects.count(), Pair.objects.count())
    out, _ = run("--format", "openclaw-amem", str(path))
    assert "imported 0 note(s) (4 already present)" in out
    assert (
        Note.objects.count(),
        Link.objects.count(),
        NoteEvent.objects.count(),
        Pair.objects.count(),
    ) == counts
    assert counts == (4, 2, 2 + 4, 1)  # two history entries of A, one import event per note


def test_round_trip_through_amem_export_keeps_counts_links_and_access_fields(tmp_path, db, store):
    """seed dump → amem → amem_export → an empty database → amem_import: the same notes, links, history and pairs."""
    run("--format", "openclaw-amem", "--no-progress", str(dump(tmp_path, POINTS)))
    counts = (Note.objects.count(), Link.objects.count(), NoteEvent.objects.count())
    call_command("amem_export", "--all", "--out-dir", str(tmp_path / "out"), stdout=StringIO())
    Pair.objects.all().delete()
    NoteEvent.objects.all().delete()
    Link.objects.all().delete()
    Note.objects.all().delete()
    Agent.objects.all().delete()
    restored, _ = run("--no-progress", *sorted(str(p) for p in (tmp_path / "out").iterdir()))
    assert "0 dangling" in restored
    assert (Note.objects.count(), Link.objects.count(), NoteEvent.objects.count()) == counts == (4, 2, 6)
    check_imported()  # the open conflict pair travels in the export's ``pair`` lines


def test_dry_run_counts_and_writes_nothing(tmp_path, db):
    path = dump(tmp_path, [*POINTS, BAD])
    out, err = run("--format", "openclaw-amem", "--dry-run", str(path))
    assert "5 record(s) read: 4 to import, 1 skipped; 2 link(s), 6 history event(s), 1 conflict pair(s)" in out
    assert "agent(s): main, writer" in out and "dry run: nothing written" in out
    assert "line 5: id is not a UUID" in err
    assert not Note.objects.exists() and not Agent.objects.exists()


def test_a_json_array_or_a_saved_scroll_answer_and_agent_mapping(tmp_path, store, make_agent):
    make_agent("ops")
    scroll = tmp_path / "scroll.json"
    scroll.write_text(json.dumps({"result": {"points": as_points([*POINTS[:2], BAD]), "next_page_offset": None}}))
    out, err = run("--format", "openclaw-amem", "--map-agent", "main=ops", str(scroll))
    assert "imported 2 note(s)" in out
    assert "skipped scroll.json point #3: id is not a UUID" in err
    a = Note.objects.get(pk=A)
    assert (a.agent_id, a.owner, a.readers, a.writers) == ("ops", "ops", ["ops"], ["ops"])
    assert not Agent.objects.filter(pk="main").exists()


def test_from_a_qdrant_collection(tmp_path, db, store):
    from qdrant_client import QdrantClient, models

    folder = tmp_path / "seed-qdrant"
    client = QdrantClient(path=str(folder))
    client.create_collection("amem_notes", vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE))
    client.upsert(
        "amem_notes",
        [models.PointStruct(id=p["id"], vector=[1.0, 0.0, 0.0, float(i)], payload=p) for i, p in enumerate(POINTS)],
    )
    client.close()
    out, _ = run("--format", "openclaw-amem", "--qdrant-path", str(folder))
    assert "4 record(s) read: 4 to import, 0 skipped" in out and "imported 4 note(s)" in out
    check_imported()
    with pytest.raises(CommandError, match="no collection 'other'"):
        run("--format", "openclaw-amem", "--qdrant-path", str(folder), "--collection", "other")


def test_one_source_only(tmp_path, db):
    with pytest.raises(CommandError, match="give one source"):
        run("--format", "openclaw-amem")
    with pytest.raises(CommandError, match="give one source"):
        run("--format", "openclaw-amem", "--qdrant-url", "http://127.0.0.1:6333", str(dump(tmp_path, POINTS)))
    with pytest.raises(CommandError, match="--map-agent takes SEED=AMEM"):
        run("--format", "openclaw-amem", "--map-agent", "main", str(dump(tmp_path, POINTS)))


# --- memory-engine ---------------------------------------------------------------------------------


def workspace(tmp_path: Path) -> Path:
    """A memory-engine workspace as its lib/paths.js lays it out: memory/{core.json, *.jsonl}."""
    memory = tmp_path / "workspace" / "memory"
    memory.mkdir(parents=True)
    archival = [
        {
            "id": "arch-1711900000000-abc123",
            "ts": "2026-04-01T10:00:00.000Z",
            "last_accessed": "2026-04-20T08:00:00.000Z",
            "access_count": 3,
            "importance": 8,
            "content": "Dr. Patel is Alex's family doctor in Edmonton.",
            "entity": "health",
            "tags": ["doctor"],
        },
        "{broken",
        {
            "id": "arch-1711900000001-def456",
            "ts": "2026-04-02T10:00:00.000Z",
            "last_accessed": None,
            "access_count": 0,
            "importance": 5,
            "content": "Alex renews the car insurance every March.",
            "entity": "general",
            "tags": [],
        },
        {"id": "arch-1711900000002-ghi789", "ts": "2026-04-03T10:00:00.000Z", "importance": 5, "entity": "finance"},
        {
            "id": "arch-1711900000003-jkl012",
            "ts": "2026-04-04T10:00:00.000Z",
            "access_count": 1,
            "content": "Alex prefers aisle seats on long flights.",
            "entity": "travel",
            "tags": ["flights"],
            "source": "auto-capture",
        },
    ]
    (memory / "archival.jsonl").write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in archival) + "\n"
    )
    core = {"identity": {"name": "Alex", "location": "Edmonton"}, "preferences": {"seat": "aisle"}}
    (memory / "core.json").write_text(json.dumps(core))
    triples = [
        {
            "id": "tri-1",
            "s": "Alex",
            "r": "has_doctor",
            "o": "Dr. Patel",
            "ts": "2026-04-01T10:00:00.000Z",
            "source": "arch-1711900000000-abc123",
        }
    ]
    (memory / "graph.jsonl").write_text("\n".join(json.dumps(t) for t in triples) + "\n")
    episode = {
        "id": "ep-1",
        "type": "episode",
        "ts": "2026-04-05T10:00:00.000Z",
        "summary": "Planned the trip.",
        "decisions": ["aisle seats"],
        "mood": "calm",
        "topics": ["travel"],
        "participants": ["Alex"],
        "duration_minutes": 12,
    }
    (memory / "episodes.jsonl").write_text(json.dumps(episode) + "\n")
    return memory.parent


def test_memory_engine_archival_becomes_notes_with_access_fields(tmp_path, store, make_agent):
    make_agent("alex-assistant")
    out, err = run("--format", "memory-engine", "--agent", "alex-assistant", str(workspace(tmp_path)))
    assert "memory-engine: 5 record(s) read: 3 to import, 2 skipped" in out
    assert "skipped archival.jsonl line 2: not JSON" in err
    assert "skipped archival.jsonl line 4: content must be a non-empty string" in err
    doctor = Note.objects.get(pk=archival_note_id("arch-1711900000000-abc123"))
    assert (doctor.agent_id, doctor.owner, doctor.tags) == ("alex-assistant", "alex-assistant", ["health", "doctor"])
    assert (doctor.retrieval_count, doctor.last_accessed) == (3, dt.datetime(2026, 4, 20, 8, tzinfo=dt.UTC))
    assert doctor.created_at == dt.datetime(2026, 4, 1, 10, tzinfo=dt.UTC)
    assert doctor.sources == ["memory-engine:arch-1711900000000-abc123"]
    assert doctor.events.get(action="import").after["original"]["importance"] == 8
    insurance = Note.objects.get(pk=archival_note_id("arch-1711900000001-def456"))
    assert (insurance.tags, insurance.last_accessed) == ([], None)
    agent = Agent.objects.get(pk="alex-assistant")
    assert search("who is the family doctor", agent, limit=1)[0].note == doctor
    again, _ = run("--format", "memory-engine", "--agent", "alex-assistant", str(workspace(tmp_path / "again")))
    assert "imported 0 note(s) (3 already present)" in again


def test_memory_engine_core_graph_and_episodes_go_to_the_memory_layers(tmp_path, store, make_agent):
    from memories.models.layers import CoreBlock, CoreEvent, Episode, Fact

    make_agent("alex-assistant")
    folder = workspace(tmp_path)
    with (folder / "memory" / "graph.jsonl").open("a") as graph:
        graph.write(json.dumps({"id": "tri-2", "s": "Alex", "r": "", "o": "nobody"}) + "\n")
    out, err = run("--format", "memory-engine", "--agent", "alex-assistant", str(folder))
    assert "memory layers: 2 core block(s), 1 fact(s), 1 episode(s) to import" in out
    assert "imported 2 core block(s) (0 already there, kept), 1 fact(s) (0 already known), 1 episode(s)" in out
    assert "skipped graph.jsonl line 2: relation must hold letters or digits" in err
    identity = CoreBlock.objects.get(agent_id="alex-assistant", subject="", name="identity")
    assert identity.value == {"name": "Alex", "location": "Edmonton"}
    assert CoreEvent.objects.get(block=identity).action == "import"
    fact = Fact.objects.get()
    assert (fact.subject, fact.relation, fact.object, fact.origin) == ("Alex", "has_doctor", "Dr. Patel", "import")
    assert fact.sources == [str(archival_note_id("arch-1711900000000-abc123"))]
    assert fact.valid_from == dt.datetime(2026, 4, 1, 10, tzinfo=dt.UTC) and fact.invalid_at is None
    episode = Episode.objects.get()
    assert episode.note_id == episode_note_id("ep-1") and episode.closed_by == "import"
    assert episode.ended_at == dt.datetime(2026, 4, 5, 10, tzinfo=dt.UTC)
    assert episode.started_at == episode.ended_at - dt.timedelta(minutes=12)
    assert episode.note.layer == "episode" and "Decisions: aisle seats" in episode.note.content
    again, _ = run("--format", "memory-engine", "--agent", "alex-assistant", str(folder))
    assert "imported 0 core block(s) (2 already there, kept), 0 fact(s) (1 already known), 0 episode(s)" in again


def test_memory_engine_needs_an_agent_and_an_archival_file(tmp_path, db):
    with pytest.raises(CommandError, match="--agent is required"):
        run("--format", "memory-engine", str(workspace(tmp_path)))
    with pytest.raises(CommandError, match=r"no archival\.jsonl"):
        run("--format", "memory-engine", "--agent", "x", str(tmp_path))
    out, _ = run(
        "--format", "memory-engine", "--agent", "alex", "--dry-run", str(workspace(tmp_path / "w2") / "memory")
    )
    assert "3 to import" in out and "dry run: nothing written" in out
    assert not Note.objects.exists()
