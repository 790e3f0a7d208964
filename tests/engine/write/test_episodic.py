"""The cheap write path: quality gate → embed raw content → insert (B044–B051)."""

from __future__ import annotations

import datetime as dt
import uuid

import numpy as np
import pytest

from engine import runtime
from engine.errors import InvalidInput, NotFound, QualityRejected
from engine.index.embeddings import from_bytes
from engine.retrieval.search import search
from engine.write.pipeline import EpisodicItem, add_episodic, add_episodic_batch
from memories.models import Note, NoteEvent, Pair


def test_an_event_is_stored_verbatim_for_its_agent(make_agent, store):  # B044
    game = make_agent("game")
    n = add_episodic("The player opened the north gate at dawn.", game)
    stored = Note.objects.get(pk=n.pk)
    assert isinstance(stored.pk, uuid.UUID)
    assert stored.content == "The player opened the north gate at dawn."
    assert (stored.agent_id, stored.owner, stored.readers, stored.writers) == ("game", "game", ["game"], ["game"])


def test_an_episodic_note_has_no_derived_fields(alice, store):  # B046
    n = Note.objects.get(pk=add_episodic("A plain event with nothing derived from it.", alice).pk)
    assert (n.keywords, n.tags, n.topics, n.context) == ([], [], [], "")
    assert (n.category, n.note_type) == ("General", "memory")
    assert not Pair.objects.touching([n.pk]).exists()
    assert not n.out_links.exists()


def test_the_embedding_is_of_the_raw_content(alice, store):  # B047
    text = "Embedding covers exactly this sentence."
    n = Note.objects.get(pk=add_episodic(text, alice).pk)
    expected = runtime.embedder().encode_one(text)
    assert np.allclose(from_bytes(n.embedding), expected, atol=1e-5)
    assert n.embedding_model == runtime.embedder().model_name


def test_the_same_text_twice_makes_two_notes_with_equal_hashes(alice, store):  # B048
    a = add_episodic("Heartbeat: the sensor reported 21 degrees.", alice)
    b = add_episodic("Heartbeat: the sensor reported 21 degrees.", alice)
    assert a.pk != b.pk
    assert a.content_hash == b.content_hash
    assert Note.objects.count() == 2


def test_too_short_text_is_rejected_and_nothing_is_stored(alice, store):  # B049
    with pytest.raises(QualityRejected, match="quality"):
        add_episodic("ok", alice)
    assert Note.objects.count() == 0 and NoteEvent.objects.count() == 0


def test_shared_scope_is_readable_by_all_and_writable_by_the_caller(alice, store):  # B050
    n = add_episodic("The shared calendar lives in the team drive.", alice, scope="shared")
    assert (n.agent_id, n.readers, n.owner, n.writers) == ("shared", ["*"], "alice", ["alice"])


def test_signal_words_make_the_note_ephemeral(alice, store):  # B051
    assert add_episodic("数据迁移脚本待跑，明早检查", alice).ephemeral


def test_subjects_sources_and_original_time_are_kept(alice, store):
    when = dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    n = add_episodic(
        "Caroline went to the support group.", alice, subjects=["caroline"], sources=["D1:3"], occurred_at=when
    )
    stored = Note.objects.get(pk=n.pk)
    assert (stored.subjects, stored.sources, stored.created_at) == (["caroline"], ["D1:3"], when)


def test_every_write_appends_a_create_event(alice, store):
    n = add_episodic("History starts with the creation event.", alice)
    assert list(n.events.values_list("action", "actor")) == [("create", "alice")]


def test_a_written_note_is_searchable(alice, store):  # B136
    add_episodic("The build server compiles the Rust workspace nightly.", alice)
    results = search("The build server compiles the Rust workspace nightly.", alice)
    assert results[0].note.content == "The build server compiles the Rust workspace nightly."
    assert results[0].similarity == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"scope": "public"}, InvalidInput),
        ({"subjects": "alex"}, InvalidInput),
        ({"subjects": [""]}, InvalidInput),
        ({"sources": [42]}, InvalidInput),
        ({"occurred_at": dt.datetime(2023, 1, 1)}, InvalidInput),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(alice, store, kwargs, error):
    with pytest.raises(error):
        add_episodic("A perfectly fine sentence of text.", alice, **kwargs)
    assert Note.objects.count() == 0


def test_an_unknown_or_inactive_agent_is_refused(make_agent, store, db):
    with pytest.raises(NotFound):
        add_episodic("Nobody owns this sentence at all.", "ghost")
    make_agent("sleepy", is_active=False)
    with pytest.raises(NotFound):
        add_episodic("Nobody owns this sentence at all.", "sleepy")
    assert Note.objects.count() == 0


def test_a_batch_with_one_bad_item_writes_nothing(alice, store):
    items = [EpisodicItem("A valid first event in the batch."), EpisodicItem("ok")]
    with pytest.raises(QualityRejected):
        add_episodic_batch(alice, items)
    assert Note.objects.count() == 0


def test_the_episodic_path_never_calls_a_model(alice, store, provider):  # B045
    add_episodic("A hot-loop event that must stay cheap.", alice)
    search("hot-loop event", alice)
    assert provider.requests == []
    runtime.llm().construct("A control call proves the fake server is wired up.")
    assert len(provider.requests) == 1


def test_a_context_is_stored_and_embedded_with_the_text(alice, store):
    n = add_episodic("Yes, we went to the lake last weekend.", alice, context="Did you go anywhere?")
    stored = Note.objects.get(pk=n.pk)
    assert stored.context == "Did you go anywhere?"
    expected = runtime.embedder().encode_one("Yes, we went to the lake last weekend. Did you go anywhere?")
    assert np.allclose(from_bytes(stored.embedding), expected, atol=1e-5)


@pytest.mark.parametrize("context", [42, "bad\x00context", "x" * 20_001])
def test_a_bad_context_is_refused_and_nothing_is_written(alice, store, context):
    with pytest.raises(InvalidInput, match="context"):
        add_episodic("A perfectly fine event text.", alice, context=context)
    assert not Note.objects.exists()


def test_a_time_without_a_utc_form_is_refused_before_anything_is_written(alice, store):
    edge = dt.datetime(9999, 12, 31, 23, 0, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    with pytest.raises(InvalidInput, match="out of range"):
        add_episodic("An event at the very end of time.", alice, occurred_at=edge)
    assert not Note.objects.exists()


@pytest.mark.parametrize("label", ["tab\x00null", "lone \ud800 surrogate"])
def test_a_label_that_cannot_be_stored_is_refused(alice, store, label):
    with pytest.raises(InvalidInput, match="sources must not contain"):
        add_episodic("A fine event with a bad source label.", alice, sources=[label])
    assert not Note.objects.exists()
