"""Erasure (engine/erasure.py): after it, the text is found nowhere amem keeps data.

Checked for each scope (a note, a subject, an agent): every row of every table, the index
(its points and the bytes of its folder), an export, a search, the note's history page in the
review app and the API; the audit record exists and holds no content. Runs on the test
database of the environment (SQLite by default, PostgreSQL with DATABASE_URL).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command

from engine import erasure
from engine.annotations import facts
from engine.errors import NotFound
from engine.index.store import digest
from engine.layers import episodes
from engine.retrieval.search import search
from engine.transfer import portable
from engine.write.pipeline import add_episodic, add_memory
from memories.models import ApiKey, Episode, Erasure, Fact, Link, Note, NoteEvent

pytestmark = pytest.mark.django_db


def secret() -> str:
    return f"zqsecret{uuid.uuid4().hex[:10]}"


def rows_holding(text: str) -> list[str]:
    """Every row of every table (each model's concrete fields) whose values mention ``text``."""
    found = []
    for model in apps.get_models():
        fields = [f.attname for f in model._meta.concrete_fields]
        for row in model.objects.values_list(*fields).iterator():
            blob = " ".join(bytes(v).decode("latin-1") if isinstance(v, bytes | memoryview) else str(v) for v in row)
            if text in blob:
                found.append(f"{model._meta.label}: {row[0]}")
    return found


def files_holding(root: Path, text: str) -> list[str]:
    needle = text.encode()
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def assert_gone(text: str, agent, store, tmp_path, client, note_ids) -> None:
    assert rows_holding(text) == []
    assert files_holding(tmp_path / "qdrant", text) == []
    indexed = {i for c in store.collections() for i in store.ids(c)}
    assert not indexed & {str(i) for i in note_ids}
    assert all(text not in line for line in portable.export_lines(agent))
    assert all(text not in r.note.content for r in search(text, agent, limit=20))
    staff = get_user_model().objects.create_user(f"s{uuid.uuid4().hex[:6]}", password="pw", is_staff=True)
    client.force_login(staff)
    for pk in note_ids:
        page = client.get(f"/review/notes/{pk}/")
        assert text not in page.content.decode()
    for pk in note_ids:
        assert Note.objects.get(pk=pk).erased_at is not None


@pytest.fixture
def world(alice, bob, store, offline_llm):
    return alice


def test_erasing_a_note_leaves_its_text_nowhere(world, store, tmp_path, client, drain):
    alice = world
    text = secret()
    note = add_memory(f"My locker code is {text}, remember it for the gym", alice).note
    other = add_memory("The gym opens at six in the morning on weekdays", alice).note
    Link.objects.get_or_create(source=other, target=note)
    from engine.write.edit import update_memory

    update_memory(note.pk, f"My locker code is {text}, changed at the gym desk today", alice)
    facts.add_fact(alice, "alice", "locker", text, sources=[str(note.pk)])
    drain()
    assert rows_holding(text)  # the check can fail: the text is there before

    done = erasure.erase_note(note.pk, alice, actor="alice")

    assert_gone(text, alice, store, tmp_path, client, [note.pk])
    audit = Erasure.objects.get(pk=done.pk)
    assert audit.scope == "note" and audit.actor == "alice" and audit.counts["notes"] == 1
    assert audit.counts["links"] >= 1 and audit.counts["facts"] == 1
    assert not Link.objects.filter(target=note).exists()
    events = NoteEvent.objects.filter(note=note)
    assert events.filter(action="erase").exists()
    assert all(e.before == {} for e in events)  # who and when stay, the content went
    Note.objects.get(pk=other.pk)  # the neighbour is untouched


def test_an_episode_citing_an_erased_turn_is_summarised_again_without_it(world, store, tmp_path, client, drain):
    alice = world
    text = secret()
    gone = add_episodic(f"User: my bank pin is {text}, do not tell anyone", alice)
    kept = add_episodic("User: we planned the cake for the party on Friday evening", alice)
    Note.objects.filter(pk__in=[gone.pk, kept.pk]).update(session="s1")
    episode = episodes.close(alice, "s1")
    assert text in Note.objects.get(pk=episode.note_id).content

    done = erasure.erase_note(gone.pk, alice, actor="alice")
    drain()

    assert_gone(text, alice, store, tmp_path, client, [gone.pk])
    episode.refresh_from_db()
    assert episode.turn_ids == [str(kept.pk)]
    assert "cake" in Note.objects.get(pk=episode.note_id).content
    assert done.counts["episodes_regenerated"] == 1


def test_an_agent_may_not_erase_another_agents_note(world, bob):
    note = add_memory("Bob keeps his bicycle in the shed behind the house", bob).note
    with pytest.raises(NotFound):
        erasure.erase_note(note.pk, world, actor="alice")
    assert Note.objects.get(pk=note.pk).erased_at is None


def test_erasing_a_subject_takes_its_notes_facts_and_episode_text(world, store, tmp_path, client, drain):
    alice = world
    text, person = secret(), f"person{uuid.uuid4().hex[:6]}"
    about = add_memory(f"{person} said the surprise party code word is {text}", alice, subjects=[person]).note
    turn = add_episodic(f"User: tell nobody, the code word is {text} for {person}", alice, subjects=[person])
    Note.objects.filter(pk=turn.pk).update(session="s1")
    kept_turn = add_episodic("User: we also planned the cake for the party on Friday", alice)
    Note.objects.filter(pk=kept_turn.pk).update(session="s1")
    episode = episodes.close(alice, "s1")
    facts.add_fact(alice, person, "likes", "chocolate cake", sources=[])
    drain()
    assert text in Note.objects.get(pk=episode.note_id).content

    done = erasure.erase_subject(person, alice, actor="alice")
    drain()

    assert_gone(text, alice, store, tmp_path, client, [about.pk, turn.pk])
    assert rows_holding(person) == [] or all("Erasure" not in r for r in rows_holding(person))
    assert files_holding(tmp_path / "qdrant", person) == []
    assert not Fact.objects.filter(subject_key=person).exists()
    # The summary named the person (it carries its turns' subjects): erased with them.
    assert not Episode.objects.filter(pk=episode.pk).exists()
    assert Erasure.objects.get(pk=done.pk).subject_digest == erasure.subject_digest(person)


def test_erasing_an_agent_takes_everything_it_held(world, bob, store, tmp_path, client, drain):
    alice = world
    text = secret()
    notes = [add_memory(f"Alice's diary entry {i}: the password hint is {text}", alice).note for i in range(3)]
    shared = add_memory(f"Shared note by alice about {text} in the team wiki", alice, scope="shared").note
    bobs = add_memory("Bob's own note about the weekly football match", bob).note
    ApiKey.issue(alice)
    drain()

    call_command("amem_erase", "--agent", "alice", "--yes")
    drain()

    assert_gone(text, alice, store, tmp_path, client, [n.pk for n in [*notes, shared]])
    alice.refresh_from_db()
    assert not alice.is_active and not alice.keys.exists()
    assert Note.objects.get(pk=bobs.pk).erased_at is None
    assert Erasure.objects.filter(scope="agent", agent_id="alice").exists()


def test_an_erased_note_cannot_be_restored(world, client):
    from engine.curation.actions import ReviewError, restore

    note = add_memory("A note that will be erased and must stay erased", world).note
    erasure.erase_note(note.pk, None, actor="op")
    with pytest.raises(ReviewError):
        restore(Note.objects.get(pk=note.pk), get_user_model()(username="x"))


def test_the_command_asks_for_confirmation(world):
    from django.core.management.base import CommandError

    note = add_memory("A note the operator nearly erased without saying yes", world).note
    with pytest.raises(CommandError, match="--yes"):
        call_command("amem_erase", "--note", str(note.pk))
    assert Note.objects.get(pk=note.pk).erased_at is None


def test_the_index_keeps_digests_not_names(world, store, drain):
    note = add_memory("Carol likes sailing on the lake at weekends", world, subjects=["carol"]).note
    drain()
    assert search("sailing", world, subject="carol")[0].note.pk == note.pk  # filters still match
    assert digest("carol") != "carol"
