"""Offline, a pair that might disagree reaches a person: never folded, merged or cleared unseen."""

from __future__ import annotations

import pytest

from engine.judgments import pair_weights
from engine.maintenance.runner import SEQUENCES, run_jobs, run_step
from engine.write.pipeline import FOLDED, add_memory
from memories.models import Note, Pair

NIGHTLY = SEQUENCES["nightly"]


def reached(a: Note, b: Note) -> bool:
    """An open pair joins the two notes: a conflict, or one waits as a possible merge with the other."""
    return Pair.objects.open().between(a, b).exists()


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Zoe prefers tea to coffee.", "Zoe prefers coffee to tea these days."),
        ("Ana takes her coffee with milk.", "Ana takes her coffee without milk."),
        ("Tom lives in Leeds.", "Tom's brother lives in Leeds."),
        ("Priya is my manager.", "Priya's manager is Daniel."),
    ],
)
def test_offline_two_texts_that_share_their_words_are_never_folded_or_merged(alice, store, a, b):
    first = add_memory(a, alice)
    second = add_memory(b, alice)
    assert second.outcome != FOLDED and second.note.pk != first.note.pk
    run_jobs(NIGHTLY, agents=[alice])
    assert Note.objects.filter(is_active=True, merged_into__isnull=True).count() == 2
    assert Note.objects.get(pk=first.note.pk).content == a  # nothing glued onto it


def test_a_text_that_adds_nothing_folds_without_a_person(alice, store):
    first = add_memory("Alex likes green tea.", alice)
    second = add_memory("Alex likes green tea", alice)
    assert second.outcome in (FOLDED, "duplicate") and second.note.pk == first.note.pk
    assert Note.objects.get().content == "Alex likes green tea."


@pytest.mark.realmodel  # the judge weighs MiniLM's similarity, as in production
def test_a_knowledge_note_is_compared_too(alice, store):
    older = add_memory("I work at Google as an SRE.", alice, note_type="knowledge")
    newer = add_memory("I left Google last month and now work at Stripe as an SRE.", alice)
    run_jobs(NIGHTLY, agents=[alice])
    assert reached(older.note, newer.note)


@pytest.mark.realmodel
def test_offline_the_pending_job_leaves_every_pair_it_cannot_confirm_for_a_person(alice, store):
    older = add_memory("I'm vegan.", alice)
    newer = add_memory("I eat eggs and cheese most days.", alice)
    run_jobs(NIGHTLY, agents=[alice])
    run_jobs(NIGHTLY, agents=[alice])  # a second night clears nothing either
    assert reached(older.note, newer.note)
    waiting = Pair.objects.open().of_kind(Pair.MERGE).first()
    if waiting is not None:
        assert waiting.guess and waiting.reason  # the card says what the machine thinks and why


@pytest.mark.realmodel
def test_the_nightly_sweep_opens_no_more_cards_than_the_budget(alice, store, engine_config):
    # The write path meets no pair (nothing is similar enough to compare); the sweep must find them.
    engine_config(review_budget=1, link_min_sim=0.999, dedup_flag_sim=0.999, dedup_fold_sim=0.9999)
    pairs = [
        ("Kai is vegan.", "Kai eats eggs and cheese most days."),
        ("Lea doesn't drink alcohol.", "Lea has a glass of red wine every evening."),
        ("Ravi is single.", "Ravi's wife Meera is a doctor."),
    ]
    for a, b in pairs:
        add_memory(a, alice)
        add_memory(b, alice)
    before = Pair.objects.count()
    first = run_step("pair_sweep", alice)
    opened = first.counts.get("pairs_found", 0) + first.counts.get("pairs_asked", 0)
    assert opened == 1 and first.counts.get("deferred", 0) >= 1
    assert Note.objects.filter(conflict_scanned_at__isnull=True).exists()  # what did not fit waits
    second = run_step("pair_sweep", alice)
    assert second.counts.get("pairs_found", 0) + second.counts.get("pairs_asked", 0) == 1
    assert Pair.objects.count() == before + 2


def test_the_weights_in_the_product_were_fitted_with_thresholds_in_order():
    assert 0 < pair_weights.ASK_AT < pair_weights.CHANGE_AT <= 1
    assert set(pair_weights.CHANGE) == set(pair_weights.SAME)
