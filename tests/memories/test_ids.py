"""One rule per kind of id (memories/ids.py), refused alike by imports, the admin, the API and commands."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from engine.transfer.portable import export_lines
from engine.write.pipeline import add_memory
from memories import ids
from memories.models import Agent, CoreBlock, Episode, Fact, Gateway, Note
from surfaces.gateways import acting_agent

pytestmark = pytest.mark.usefixtures("offline_llm")

BAD_AGENT_IDS = [
    "../../../../../../../../../../tmp/x/pwn",
    "../escape",
    "a/b",
    "a\\b",
    "..",
    "",
    "Demo",
    "demo\n",
    "de mo",
    "-demo",
    "x" * 65,
    "dé",
    "demo\x00",
]
BAD_BLOCK_NAMES = ["../x", "a/b", "", "User", "1user", "user\n", "x" * 65]
BAD_LABELS = ["", " padded ", "two\nlines", "tab\there", "nul\x00", "x" * 201, "bell\x07"]


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def _export_with_agent_id(source: Agent, agent_id: str) -> list[str]:
    """A real export of ``source`` whose header (and rows) name ``agent_id`` instead."""
    lines = []
    for line in export_lines(source):
        item = json.loads(line)
        if item["type"] == "amem-export":
            item["agent"]["id"] = agent_id
        for key in ("agent_id", "owner"):
            if item.get(key) == source.pk:
                item[key] = agent_id
        lines.append(json.dumps(item))
    return lines


def test_the_traversal_import_is_refused_with_a_clear_error_and_writes_nothing(alice, store, tmp_path):
    add_memory("The spare key to the flat is under the blue flower pot.", alice)
    evil = "../../../../../../../../../../tmp/x/pwn"
    path = tmp_path / "evil.jsonl"
    path.write_text("\n".join(_export_with_agent_id(alice, evil)) + "\n")
    before = (Agent.objects.count(), Note.objects.count())

    with pytest.raises(CommandError) as refused:
        run("amem_import", str(path), "--no-progress")

    assert str(refused.value).startswith("line 1: agent id '../../")
    assert "lower-case letters" in str(refused.value)
    assert (Agent.objects.count(), Note.objects.count()) == before
    assert not Agent.objects.filter(pk=evil).exists()


def test_a_bad_id_on_any_line_refuses_the_whole_import(alice, store, tmp_path):
    add_memory("The spare key to the flat is under the blue flower pot.", alice)
    lines = list(export_lines(alice))
    lines[0] = lines[0].replace('"alice"', '"carol"')  # a fresh agent: the import would create it
    note = json.loads(lines[1])
    note["owner"] = "../carol"
    lines[1] = json.dumps(note)
    path = tmp_path / "one-bad-line.jsonl"
    path.write_text("\n".join(lines) + "\n")

    with pytest.raises(CommandError, match=r"^line 2: agent id '\.\./carol' is not valid"):
        run("amem_import", str(path), "--no-progress")
    assert not Agent.objects.filter(pk="carol").exists()


def test_export_all_never_writes_outside_its_folder(alice, tmp_path):
    # A row that bypassed every check (written by SQL, say) is still not turned into a path.
    Agent.objects.bulk_create([Agent(id="../../outside")])
    folder = tmp_path / "exports"

    with pytest.raises(CommandError, match=r"not exported: agent id '\.\./\.\./outside'"):
        run("amem_export", "--all", "--out-dir", str(folder))

    written = {p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()}
    assert written <= {Path("exports/alice.jsonl")}
    assert not (tmp_path.parent / "outside.jsonl").exists()


@pytest.mark.parametrize("bad", BAD_AGENT_IDS)
def test_file_in_takes_only_a_checked_id(tmp_path, bad):
    with pytest.raises(ids.InvalidId):
        ids.file_in(tmp_path, bad, ".jsonl")


@pytest.mark.parametrize("bad", BAD_AGENT_IDS)
def test_the_model_refuses_a_bad_agent_id_on_save(db, bad):
    with pytest.raises(ids.InvalidId):
        Agent(id=bad).save()
    with pytest.raises(ids.InvalidId):
        Agent(id="fine", collection=bad or "-").save()
    assert not Agent.objects.exists()


@pytest.mark.parametrize("bad", [b for b in BAD_AGENT_IDS if b])  # "" is a usage error before any check
def test_every_command_refuses_the_same_agent_ids(alice, store, tmp_path, bad):
    text = tmp_path / "notes.txt"
    text.write_text("The spare key to the flat is under the blue flower pot.\n")
    commands = [
        ("amem_agent", "create", "--", bad),
        ("amem_agent", "create", "fine", f"--collection={bad}"),
        ("amem_export", f"--agent={bad}"),
        ("amem_import", str(text), f"--agent={bad}", "--no-progress"),
        ("amem_erase", f"--agent={bad}", "--yes"),
        ("amem_erase", "--subject", "dora", f"--agent={bad}", "--yes"),
        ("amem_search", "kitten", f"--agent={bad}"),
    ]
    for command in commands:
        with pytest.raises(CommandError) as refused:
            run(*command)
        assert "is not valid: 1–64 lower-case letters" in str(refused.value), (command, str(refused.value))
    assert set(Agent.objects.values_list("pk", flat=True)) == {"alice"}


@pytest.mark.parametrize("bad", BAD_AGENT_IDS)
def test_the_admin_refuses_the_same_agent_ids(admin_client, bad):
    response = admin_client.post("/admin/memories/agent/add/", {"id": bad, "name": "x", "is_active": "on"})
    assert response.status_code == 200  # the form again, with its error
    assert "is not valid" in response.content.decode() or "This field is required" in response.content.decode()
    assert not Agent.objects.exists()


# The header is trimmed first, and "gw-" + "-demo" is a fine id: the rest must still be refused.
@pytest.mark.parametrize("bad", [b for b in BAD_AGENT_IDS if not ids._SLUG.match(f"gw-{b}".strip())])
def test_a_gateway_refuses_the_same_agent_ids(db, bad):
    gateway = Gateway.objects.create(prefix="gw-")
    with pytest.raises(Exception) as refused:
        acting_agent(gateway, f"gw-{bad}")
    assert type(refused.value).__name__ in ("InvalidInput", "PermissionDenied")
    assert not Agent.objects.exists()


@pytest.mark.parametrize("bad", BAD_BLOCK_NAMES)
def test_the_models_refuse_bad_block_names_subjects_and_sessions(alice, bad):
    with pytest.raises(ids.InvalidId):
        CoreBlock(agent=alice, name=bad).save()
    with pytest.raises(ids.InvalidId):
        CoreBlock(agent=alice, name="user", subject=f" {bad}\n").save()
    assert not CoreBlock.objects.exists()


@pytest.mark.parametrize("bad", BAD_AGENT_IDS)
def test_facts_and_episodes_refuse_bad_agent_ids_and_sessions(alice, bad):
    with pytest.raises(ids.InvalidId):
        Fact(agent_id=bad, subject="x", relation="r", object="y").save()
    note = add_memory("The spare key to the flat is under the blue flower pot.", alice).note
    with pytest.raises(ids.InvalidId):
        Episode(
            agent_id="alice", session=f"{bad}\n", note=note, started_at=note.created_at, ended_at=note.created_at
        ).save()
    assert not Fact.objects.exists() and not Episode.objects.exists()
