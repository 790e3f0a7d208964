"""The search path's own reads (memories/raw_rows.py) answer what the ORM answers, on either database."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from memories import access, raw_rows
from memories.models import Link, Note

pytestmark = pytest.mark.django_db


def full_note(agent_id: str, **extra) -> Note:
    older = Note.objects.create(agent_id=agent_id, owner=agent_id, content="an older note", content_hash="h0")
    fields = {"readers": [agent_id, "helper"], "subjects": ["caroline"], **extra}
    return Note.objects.create(
        agent_id=agent_id,
        owner=agent_id,
        writers=[agent_id],
        content="Caroline moved to Denver — 她搬家了",
        content_hash="h1",
        keywords=["move", "Denver"],
        metadata={"source": {"app": "chat", "n": 3}},
        embedding=b"\x00\x01\x02\x03" * 4,
        created_at=timezone.now() - dt.timedelta(days=3, microseconds=7),
        last_accessed=timezone.now(),
        retrieval_count=4,
        importance=7,
        low_quality=True,
        merged_into=older,
        quality_scored_revision=1,
        **fields,
    )


def by_id(note: Note) -> tuple[str, list]:
    return "id IN (%s)", [raw_rows.as_key(Note, note.pk)]


def test_a_whole_note_reads_as_the_orm_reads_it(alice):
    note = full_note(alice.id)
    (raw,) = raw_rows.instances(Note, None, *by_id(note))
    orm = Note.objects.get(pk=note.pk)
    for field in Note._meta.concrete_fields:
        assert getattr(raw, field.attname) == getattr(orm, field.attname), field.attname
        assert type(getattr(raw, field.attname)) is type(getattr(orm, field.attname)), field.attname
    assert raw.created_at.tzinfo is not None and raw.created_at == note.created_at
    assert not raw._state.adding  # a read note, saved as an update


def test_a_note_read_in_part_reads_the_rest_when_touched(alice, django_assert_num_queries):
    note = full_note(alice.id)
    (raw,) = raw_rows.instances(Note, ("content", "subjects"), *by_id(note))
    assert raw.get_deferred_fields() >= {"keywords", "metadata", "embedding"}
    with django_assert_num_queries(0):
        assert (raw.pk, raw.content, raw.subjects) == (note.pk, note.content, ["caroline"])
    with django_assert_num_queries(1):
        assert raw.metadata == {"source": {"app": "chat", "n": 3}}


def test_rows_hold_the_values_the_orm_gives(alice):
    note = full_note(alice.id)
    names = ("pk", "readers", "created_at", "last_accessed", "low_quality", "merged_into_id", "importance")
    (row,) = raw_rows.select(Note, names, *by_id(note))
    assert row == Note.objects.values_list(*names).get(pk=note.pk)


def test_links_undecoded_name_notes_as_the_database_does(alice):
    a, b = full_note(alice.id), full_note(alice.id)
    link = Link.objects.create(source=a, target=b, reason="adjacent turn")
    where, params = "source_id IN (%s)", [raw_rows.as_key(Note, a.pk)]
    ((pk, source, target),) = raw_rows.select(Link, ("pk", "source_id", "target_id"), where, params, decoded=False)
    assert pk == link.pk and uuid.UUID(str(source)) == a.pk and uuid.UUID(str(target)) == b.pk


def test_visible_notes_and_rows_keep_the_access_rules(alice, bob, make_agent):
    vault = make_agent("vault", collection="vault_notes")
    mine = full_note(alice.id)
    granted = full_note(bob.id, subjects=[], readers=[bob.id, alice.id])
    foreign = full_note(bob.id)
    retired = full_note(alice.id, is_active=False)
    walled = full_note(vault.id, readers=["*"])
    ids = [walled.pk, foreign.pk, granted.pk, retired.pk, mine.pk, uuid.uuid4()]
    expected = [granted.pk, mine.pk]  # the order asked, unreadable ones gone
    assert [n.pk for n in access.visible_notes(alice, ids)] == expected
    assert [r["key"] for r in access.visible_rows(alice, ids, ("content",))] == [str(pk) for pk in expected]
    assert [n.pk for n in access.visible_notes(alice, ids, subject="sam")] == [granted.pk]  # a world fact
    assert [n.pk for n in access.visible_notes(vault, ids)] == [walled.pk]
    assert access.visible_notes(alice, []) == [] and access.visible_rows(alice, [], ("content",)) == []


def test_uuid_keys_are_the_keys_the_field_makes_whatever_form_the_id_comes_in(alice):
    note = full_note(alice.id)
    forms = [note.pk, str(note.pk), str(note.pk).upper(), note.pk.hex, f"{{{note.pk}}}"]
    keys = raw_rows.uuid_keys(forms)
    assert keys == {str(note.pk): raw_rows.as_key(Note, note.pk)}  # one id, in the database's form
    ((found,),) = raw_rows.select(Note, ("content",), "id IN (%s)", list(keys.values()))
    assert found == note.content
    with pytest.raises(ValueError):
        raw_rows.uuid_keys([str(note.pk)[:-1] + "g"])


def test_an_undecoded_time_sorts_links_as_their_times_whatever_the_insert_order(alice):
    # An import writes links in id order with their exported times (engine/transfer/portable.py):
    # the walk's order is the times', so the value must follow the time, not the primary key.
    a = full_note(alice.id)
    base = timezone.now().replace(microsecond=0)
    times = [  # inserted in this order: whole seconds, one microsecond apart, a day apart
        base + dt.timedelta(days=1),
        base,
        base + dt.timedelta(microseconds=1),
        base + dt.timedelta(microseconds=500_000),
        base - dt.timedelta(days=400),
    ]
    links = [Link.objects.create(source=a, target=full_note(alice.id), created_at=at) for at in times]
    where, params = "source_id IN (%s)", [raw_rows.as_key(Note, a.pk)]
    rows = raw_rows.select(
        Link, ("pk",), where, params, decoded=False, also=(raw_rows.undecoded_time(Link, "created_at"),)
    )
    by_time = [pk for pk, _ in sorted(rows, key=lambda row: row[1])]
    assert by_time == [link.pk for link in sorted(links, key=lambda link: link.created_at)]
    assert all(not isinstance(value, dt.datetime) for _, value in rows)  # nothing decoded


def test_among_ids_finds_exactly_the_notes_asked_for(alice):
    notes = [full_note(alice.id) for _ in range(3)]
    asked = [notes[0].pk, notes[2].pk, uuid.uuid4()]  # one that does not exist
    where, params = raw_rows.among_ids("id", list(raw_rows.uuid_keys(asked).values()))
    assert {pk for (pk,) in raw_rows.select(Note, ("pk",), where, params)} == {notes[0].pk, notes[2].pk}


def test_uuid_text_names_the_note_without_a_uuid_object(alice):
    a, b = full_note(alice.id), full_note(alice.id)
    Link.objects.create(source=a, target=b)
    where, params = raw_rows.among_ids("source_id", [raw_rows.as_key(Note, a.pk)])
    ((target,),) = raw_rows.select(Link, (), where, params, decoded=False, also=(raw_rows.uuid_text(Link, "target"),))
    assert isinstance(target, str) and uuid.UUID(target) == b.pk  # canonical text, or the 32 hex digits SQLite keeps


def test_an_undecoded_time_decodes_to_the_time_the_orm_reads(alice):
    note = full_note(alice.id)
    never = full_note(alice.id)
    Note.objects.filter(pk=never.pk).update(last_accessed=None)
    times = (raw_rows.undecoded_time(Note, "created_at"), raw_rows.undecoded_time(Note, "last_accessed"))
    for one in (note, never):
        ((created, accessed),) = raw_rows.select(Note, (), *by_id(one), decoded=False, also=times)
        orm = Note.objects.get(pk=one.pk)
        assert raw_rows.decode_time(created) == orm.created_at and raw_rows.decode_time(created).tzinfo is not None
        assert raw_rows.decode_time(accessed) == orm.last_accessed  # microseconds kept; None stays None
