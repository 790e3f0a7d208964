"""A fold never mixes facts: contradictions become two notes and a conflict; repeats collapse."""

from __future__ import annotations

import pytest

from engine.maintenance.runner import run_jobs
from engine.reading.contradiction_rules import contradiction
from engine.reading.merged_text import merged_text
from engine.write.pipeline import DUPLICATE, FOLDED, add_memory
from memories.models import Note, Pair


@pytest.mark.realmodel  # relies on meaning: the two texts must resemble each other (cos ≥ 0.72)
def test_an_age_that_changed_gives_two_notes_and_reaches_a_person_by_the_nightly_sweep(alice, store):
    old = add_memory("Mia is 7 years old.", alice)
    new = add_memory("Mia just turned 9.", alice)
    assert new.outcome != FOLDED and Note.objects.count() == 2
    assert Note.objects.get(pk=old.note.pk).content == "Mia is 7 years old."  # nothing glued onto it
    run_jobs(("pending_merge", "same_day_merge", "consolidation", "pair_sweep"), agents=[alice])
    # A conflict, or the newer note waiting as a possible merge with the older one.
    pair = Pair.objects.filter(newer=new.note, older=old.note).first()
    assert pair is not None
    assert "7" in pair.reason and "9" in pair.reason  # the two values, in words a person reads
    assert Note.objects.filter(is_active=True).count() == 2  # the merge jobs must not fold them


def test_the_same_sentence_three_times_is_one_sentence(alice, store):
    outcomes = [add_memory(text, alice).outcome for text in ["Alex enjoyed a wine bar in Neukölln."] * 3]
    assert outcomes[1:] == [DUPLICATE, DUPLICATE]
    assert list(Note.objects.values_list("content", flat=True)) == ["Alex enjoyed a wine bar in Neukölln."]


@pytest.mark.realmodel  # relies on meaning (paraphrase similarity ≥ 0.85)
def test_a_repeat_folds_without_repeating_the_fact_and_a_rewording_is_never_glued_on(alice, store):
    first = add_memory("Alex enjoyed a wine bar in Neukölln.", alice)
    result = add_memory("Alex enjoyed a wine bar in Neukölln!", alice)
    assert result.outcome in (FOLDED, DUPLICATE) and result.note.pk == first.note.pk
    reworded = add_memory("alex mentioned a wine bar in Neukölln.", alice)
    assert reworded.outcome != FOLDED  # offline a rewording may say more or less: a person's call
    assert Note.objects.get(pk=first.note.pk).content == "Alex enjoyed a wine bar in Neukölln."


@pytest.mark.parametrize(
    "old, new",
    [
        ("Mia is 7.", "Mia just turned 9."),
        ("Alex likes green tea in the morning.", "Alex no longer likes green tea in the morning."),
        ("Alex drinks coffee every morning.", "Alex stopped drinking coffee every morning."),
        ("Alex lives in Paris with his sister.", "Alex now lives in Lyon with his sister."),
        ("The meeting is on Monday.", "The meeting is on Friday."),
        ("Alex is a vegetarian.", "Alex is not a vegetarian."),
    ],
)
def test_the_rules_see_a_contradiction(old, new):
    assert contradiction(old, new) is not None


@pytest.mark.parametrize(
    "old, new",
    [
        ("Staging uses PostgreSQL 16 on its own server.", "Staging runs PostgreSQL 16 on its own server with 64 GB."),
        ("Alex enjoyed a wine bar in Neukölln.", "Alex mentioned a wine bar in Neukölln."),
        ("The API stores orders in PostgreSQL.", "The API stores its orders in PostgreSQL on a dedicated host."),
        ("The staging database runs PostgreSQL 16.", "The production database runs PostgreSQL 15."),
    ],
)
def test_added_detail_is_not_a_contradiction(old, new):
    assert contradiction(old, new) is None


def test_a_merged_text_keeps_each_distinct_fact_once():
    a = "Alex enjoyed a wine bar in Neukölln."
    assert merged_text(a, "Alex mentioned a wine bar in Neukölln. It is called Weinerei.") == (
        "Alex enjoyed a wine bar in Neukölln. It is called Weinerei."
    )
    assert merged_text(a, a + " " + a) == a
