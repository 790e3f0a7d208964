"""Contradiction sweep: batches of 25 newest first per category, incremental, review by default, auto retires."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from engine import runtime
from engine.maintenance.runner import Gate, run_step
from memories.models import SHARED_AGENT, Note, NoteEvent, Pair
from tests.engine.maintenance.conftest import axis, near, put, wrote

NOW = timezone.now()


def note(agent, text: str, minutes_ago: int, **fields) -> Note:
    return put(agent, text, created_at=NOW - timedelta(minutes=minutes_ago), **fields)


def found(provider, *pairs: tuple[int, int, int | None], reason: str = "cannot both be true") -> None:
    provider.reply_json(
        {"pairs": [{"a": a, "b": b, "superseded": s, "reason": reason} for a, b, s in pairs]}, role="conflict_scan"
    )


def nothing(provider, times: int = 10) -> None:
    for _ in range(times):
        provider.reply_json({"pairs": []}, role="conflict_scan")


def batches_sent(provider) -> list[list[str]]:
    """The notes of each call, in the order they were numbered."""
    sent = []
    for request in provider.requests_for("conflict_scan"):
        lines = [line for line in request.prompt.splitlines() if line.startswith("[")]
        sent.append([line.split("] ", 1)[1] for line in lines if line[1].isdigit()])
    return sent


def cards() -> list[tuple]:
    """Every pair a person was shown, either queue, as (newer, older)."""
    return list(Pair.objects.order_by("pk").values_list("newer_id", "older_id"))


def sweep(agent, **options):
    return run_step("contradiction_sweep", agent, options=options)


def offline_sweep(agent):
    return run_step("pair_sweep", agent)


@pytest.fixture
def diet(alice):
    """Three Personal notes, newest first: steak (0), dark mode (1), vegetarian (2)."""
    return (
        note(alice, "Alice loved the steak at dinner.", 1, category="Personal"),
        note(alice, "Alice prefers dark mode everywhere.", 2, category="Personal"),
        note(alice, "Alice has been vegetarian for years.", 3, category="Personal"),
    )


def test_offline_the_sweep_triages_each_new_note_against_its_nearest_and_clears_nothing(alice, diet):
    steak, _dark, veggie = diet
    wrote(alice)
    row = offline_sweep(alice)
    assert row.outcome == "ok" and row.counts["scanned"] == 3
    # At most one card per note a night: a note whose pair waited for that is judged again the next
    # night, and every note is scanned by then.
    if row.counts.get("deferred"):
        assert offline_sweep(alice).outcome == "ok"
    assert Note.objects.filter(conflict_scanned_at__isnull=False).count() == 3
    # vegetarian (older) / steak (newer): found, as a conflict or as a pair waiting for a person.
    pair = Pair.objects.open().filter(newer=steak, older=veggie).first()
    assert pair is not None
    if pair.kind == Pair.CONFLICT:
        assert pair.opened_by == "rules" and pair.likelihood is not None and "vegetarian" in pair.reason
    assert Note.objects.filter(is_active=True).count() == 3  # nothing retired or merged
    again = offline_sweep(alice)
    assert again.counts.get("deferred", 0) == 0
    assert again.counts.get("pairs_found", 0) == again.counts.get("pairs_asked", 0) == 0  # never offered twice


def test_with_a_model_the_night_asks_it_about_pairs_and_the_batch_sweep_reads_every_note_by_hand(alice, diet, provider):
    from engine.maintenance.runner import SEQUENCES, run_jobs

    nothing(provider)
    wrote(alice)
    run_jobs(SEQUENCES["nightly"], agents=[alice])
    sent = batches_sent(provider)
    assert sent and all(len(texts) == 2 for texts in sent)  # pairs of the night's ranking, no batch of three
    # The model found no contradiction: a pair the judge asked about waits in the merge queue, as offline.
    waiting = Pair.objects.open().get(kind=Pair.MERGE)
    assert waiting.opened_by == "rules" and [waiting.older.content, waiting.newer.content] in sent
    assert sweep(alice).outcome == "ok" and batches_sent(provider)[-1] == [n.content for n in diet]  # by hand


def test_offline_the_models_sweep_skips_and_the_pair_sweep_runs(alice, diet):
    wrote(alice)
    skipped = sweep(alice)
    assert skipped.outcome == "skipped" and "pair_sweep" in skipped.detail and not skipped.counts
    assert offline_sweep(alice).counts["scanned"] == 3


def test_review_mode_records_a_pair_and_flags_both_notes(alice, diet, provider):
    steak, dark, veggie = diet
    found(provider, (0, 2, None), reason="vegetarian vs steak")
    row = sweep(alice)
    assert batches_sent(provider) == [[steak.content, dark.content, veggie.content]]
    pair = Pair.objects.get()
    assert (pair.newer_id, pair.older_id, pair.kind, pair.status) == (steak.pk, veggie.pk, Pair.CONFLICT, "open")
    assert pair.reason == "vegetarian vs steak"
    assert set(Note.objects.waiting(Pair.CONFLICT).values_list("pk", flat=True)) == {steak.pk, veggie.pk}
    for n, other in ((steak, veggie), (veggie, steak)):
        n.refresh_from_db()
        assert n.is_active and n.evolution_type == "CONFLICT"
        after = n.events.get().after
        assert (after["queue"], after["waits_beside"], after["reason"]) == (
            Pair.CONFLICT,
            str(other.pk),
            "vegetarian vs steak",
        )
    assert not Note.objects.waiting().filter(pk=dark.pk).exists()
    assert Note.objects.filter(conflict_scanned_at__isnull=False).count() == 3  # every note of the batch
    assert row.outcome == "ok"
    assert row.counts == {"llm_calls": 1, "pairs_found": 1, "batches_scanned": 1, "scanned": 3}


def test_batches_hold_25_notes_newest_first_and_a_lone_remainder_is_not_sent(alice, provider):
    notes = [note(alice, f"Project fact number {i} about the launch.", i, category="Project") for i in range(26)]
    nothing(provider)
    sweep(alice)
    assert batches_sent(provider) == [[n.content for n in notes[:25]]]
    note(alice, "Project fact number 26 about the launch.", 26, category="Project")
    sweep(alice)
    assert batches_sent(provider)[1] == [notes[25].content, "Project fact number 26 about the launch."]


def test_each_category_is_swept_on_its_own_and_singles_are_skipped(alice, provider):
    note(alice, "Alice's office is in Berlin.", 1, category="Business")
    note(alice, "Alice works from Munich now.", 2, category="Personal")
    note(alice, "Alice likes hiking in the Alps.", 3, category="Personal")
    nothing(provider)
    row = sweep(alice)
    assert batches_sent(provider) == [["Alice works from Munich now.", "Alice likes hiking in the Alps."]]
    assert row.counts["batches_scanned"] == 1


def test_knowledge_shared_retired_and_foreign_notes_are_not_swept(alice, bob, diet, provider):
    note(alice, "Vegetarians eat no meat.", 4, category="Personal", note_type=Note.KNOWLEDGE)
    note(alice, "Alice eats meat on Sundays.", 5, category="Personal", agent_id=SHARED_AGENT, readers=["*"])
    note(alice, "Alice hates vegetables.", 6, category="Personal", is_active=False)
    note(bob, "Bob says Alice eats fish.", 7, category="Personal")
    nothing(provider)
    sweep(alice)
    assert batches_sent(provider) == [[n.content for n in diet]]


def test_the_sweep_is_incremental_and_force_reads_again(alice, diet, provider):
    nothing(provider)
    sweep(alice)
    events = NoteEvent.objects.count()
    second = sweep(alice)
    assert len(provider.requests_for("conflict_scan")) == 1
    assert second.counts == {"batches_skipped": 1} and NoteEvent.objects.count() == events
    note(alice, "Alice ordered a burger today.", 0, category="Personal")  # one unscanned note: read again
    sweep(alice)
    assert len(provider.requests_for("conflict_scan")) == 2
    sweep(alice, force=True)
    assert len(provider.requests_for("conflict_scan")) == 3


def test_a_note_changed_since_its_scan_is_read_again(alice, diet, provider):
    nothing(provider)
    sweep(alice)
    steak = Note.objects.get(pk=diet[0].pk)
    steak.content = "Alice loved the steak and the wine at dinner."
    steak.save()
    sweep(alice)
    assert len(provider.requests_for("conflict_scan")) == 2


def test_a_known_pair_is_not_recorded_twice(alice, diet, provider):
    steak, _, veggie = diet
    Pair.objects.create(kind=Pair.CONFLICT, older=steak, newer=veggie, reason="found by the merge judge")
    found(provider, (0, 2, None))
    row = sweep(alice)
    assert Pair.objects.count() == 1 and row.counts["pairs_known"] == 1 and not NoteEvent.objects.exists()


def test_auto_mode_retires_only_the_side_the_model_names(alice, diet, provider, config):
    steak, _dark, veggie = diet
    config(conflict_mode="auto")
    found(provider, (0, 2, 2))  # the model says "vegetarian" is outdated, though it is the older note
    row = sweep(alice)
    steak.refresh_from_db()
    veggie.refresh_from_db()
    assert steak.is_active and not veggie.is_active
    assert veggie.index_dirty and veggie.revision == 2
    pair = Pair.objects.get()
    assert (pair.superseded_id, pair.status, pair.resolution) == (veggie.pk, "resolved", "auto_retired")
    assert veggie.events.filter(action="retire").get().after["superseded_by"] == str(steak.pk)
    assert steak.evolution_type == veggie.evolution_type == "CONFLICT"  # both still marked, as in review mode
    assert not Note.objects.waiting().exists()  # decided: nothing waits for a person
    assert row.counts["retired"] == 1


def test_auto_mode_retires_nothing_when_the_model_names_neither_side(alice, diet, provider, config):
    config(conflict_mode="auto")
    found(provider, (0, 2, None))
    row = sweep(alice)
    assert Note.objects.filter(is_active=True).count() == 3 and "retired" not in row.counts
    assert Pair.objects.get().status == "open"


def test_an_explicit_mode_wins_over_the_setting(alice, diet, provider, config):
    config(conflict_mode="auto")
    found(provider, (0, 2, 2))
    sweep(alice, mode="review")
    assert Note.objects.filter(is_active=True).count() == 3


def test_a_failed_call_stamps_nothing_so_the_batch_is_read_next_time(alice, diet, provider):
    provider.fail(500, role="conflict_scan")
    row = sweep(alice)
    assert row.outcome == "partial"
    assert not Note.objects.filter(conflict_scanned_at__isnull=False).exists()
    nothing(provider)
    assert sweep(alice).counts["batches_scanned"] == 1


def test_a_write_stops_the_sweep_before_the_next_batch(alice, provider, monkeypatch):
    for i in range(2):
        note(alice, f"Business fact {i} about the contract.", i, category="Business")
        note(alice, f"Personal fact {i} about the weekend.", i, category="Personal")
    wrote(alice, timezone.now() - timedelta(minutes=5))
    real = runtime.llm().conflict_scan

    def while_alice_writes(*args, **kwargs):
        wrote(alice)
        return real(*args, **kwargs)

    monkeypatch.setattr(runtime.llm(), "conflict_scan", while_alice_writes)
    nothing(provider)
    row = run_step("contradiction_sweep", alice, gate=Gate(60))
    assert row.outcome == "stopped" and row.counts["batches_scanned"] == 1
    assert Note.objects.filter(conflict_scanned_at__isnull=False, category="Business").count() == 2
    assert not Note.objects.filter(conflict_scanned_at__isnull=False, category="Personal").exists()


def test_a_note_sits_in_at_most_one_card_a_night(alice):
    # On a real store one long chat turn sat in nine cards of one night.
    older = [
        note(alice, text, i) for i, text in enumerate(["I live in Leeds.", "I work in Leeds.", "I shop in Leeds."])
    ]
    newer = note(alice, "I moved from Leeds to York last month; I no longer live, work or shop in Leeds.", 5)
    assert older and newer
    wrote(alice)
    row = offline_sweep(alice)
    opened = cards()
    in_cards = [pk for pair in opened for pk in pair]
    assert opened and len(in_cards) == len(set(in_cards)), opened
    assert row.counts.get("deferred", 0) >= 1


def test_a_note_is_weighed_only_beside_the_older_note_it_shares_most_with(alice):
    # On real stores a note saying something changed was weighed against every neighbour, and its
    # one card a night went to the neighbour the judge liked best, often one it does not change
    # (docs/benchmarks.md). Here "vegetarian" is closer by cosine and the judge likes it a little
    # better (0.94 against 0.93), but the moved note shares its words with the Leeds note.
    leeds = note(alice, "I live in Leeds with my sister.", 30, vector=near(0, 0.65, 1))
    veggie = note(alice, "I am vegetarian.", 20, vector=near(0, 0.85, 2))
    moved = note(alice, "I moved out of Leeds last month; I no longer live there.", 5, vector=axis(0))
    wrote(alice)
    for _ in range(2):
        offline_sweep(alice)
    shown = cards()
    assert (moved.pk, leeds.pk) in shown
    assert not any({moved.pk, veggie.pk} <= set(card) for card in shown)  # never weighed, even on the second night


def test_nearest_older_keeps_each_newer_notes_nearest_pair():
    from types import SimpleNamespace

    from engine.maintenance.pair_sweep import nearest_older

    a, b, c, d = (SimpleNamespace(pk=k) for k in "abcd")
    pairs = [(a, c, 0.9, 1.0), (b, c, 0.5, 1.4), (a, d, 0.7, 0.8), (c, d, 0.6, 0.7)]
    assert nearest_older(pairs) == [(b, c, 0.5), (a, d, 0.7)]  # type: ignore[arg-type]


@pytest.fixture
def cue_words_and_a_sale(alice):
    """Two pairs, each its own card: a coaching note and a later turn full of "now … actually" that
    changes nothing (the judge: 0.80 a change), a car and its later sale said without a change word
    the judge knows (0.68). Oldest first: coach, cue words, car, sale."""
    sam = "Sam: Now that the season has started, the under-12s are actually playing really well, I'm so proud of them!"
    written = [
        ("Sam: I coach the under-12 football team on Saturdays.", 40, axis(0)),
        (sam, 30, near(0, 0.8, 1)),
        ("Priya: I drive a red Honda Civic.", 20, axis(2)),
        ("Priya: I sold the Civic last week, so it's the bus for me until the new bike arrives.", 10, near(2, 0.8, 3)),
    ]
    return tuple(note(alice, text, minutes, vector=vector) for text, minutes, vector in written)


def test_the_night_opens_first_the_pair_whose_newer_note_says_a_change(alice, config, cue_words_and_a_sale):
    # The change model reads the note: with one card a night the sale opens first, the cue words
    # the next night; the judge alone puts the cue words first (docs/benchmarks.md, "A model of
    # what a change says").
    coach, cue_words, car, sold = cue_words_and_a_sale

    def opened() -> list[set]:
        return [set(card) for card in cards()]

    config(review_budget=1)
    wrote(alice)
    row = offline_sweep(alice)
    assert opened() == [{sold.pk, car.pk}]
    assert row.counts["read_by_model"] == 2 and row.counts["deferred"] == 1
    offline_sweep(alice)  # the pair below it waits for the next night, not dropped
    assert {cue_words.pk, coach.pk} in opened()

    Pair.objects.all().delete()
    Note.objects.update(conflict_scanned_at=None)
    config(review_budget=1, change_model=False)
    offline_sweep(alice)
    assert opened() == [{cue_words.pk, coach.pk}]


def test_a_pair_that_missed_the_budget_through_the_window_is_dropped_not_weighed_again(
    alice, config, cue_words_and_a_sale
):
    cue_words = cue_words_and_a_sale[1]
    config(review_budget=1)
    wrote(alice)
    first = offline_sweep(alice)
    assert first.counts["deferred"] == 1 and "dropped" not in first.counts
    marked = Note.objects.get(pk=cue_words.pk).sweep_deferred_since
    assert marked is not None
    # Fifteen nights later, every one of them full: the pair had its fortnight.
    Note.objects.filter(pk=cue_words.pk).update(
        updated_at=marked - timedelta(days=16), sweep_deferred_since=marked - timedelta(days=15)
    )
    config(review_budget=0)
    assert offline_sweep(alice).counts["dropped"] == 1
    config(review_budget=1)
    assert "deferred" not in offline_sweep(alice).counts  # not weighed again
    assert not Pair.objects.filter(newer=cue_words).exists()
    # Changed, it competes again, and tonight it fits.
    Note.objects.filter(pk=cue_words.pk).update(updated_at=timezone.now())
    offline_sweep(alice)
    assert Note.objects.get(pk=cue_words.pk).sweep_deferred_since is None
    assert Pair.objects.open().filter(newer=cue_words).exists()


def test_the_model_reads_at_most_a_nights_share_the_judges_likeliest_first(alice, monkeypatch, cue_words_and_a_sale):
    from engine.judgments import change_note

    monkeypatch.setattr(change_note, "READS_PER_NIGHT", 1)
    read: list[list[str]] = []
    real = change_note.says_change
    monkeypatch.setattr(change_note, "says_change", lambda texts: read.append(list(texts)) or real(texts))
    wrote(alice)
    row = offline_sweep(alice)
    # The judge likes the cue words more: theirs is the one note read tonight.
    assert row.counts["read_by_model"] == 1 and read == [[cue_words_and_a_sale[1].content]]


def test_with_a_model_it_reads_only_the_top_of_the_night_and_the_card_says_the_model_decided(
    alice, config, provider, cue_words_and_a_sale
):
    # With a model configured the night's ranking decides which pairs the model is asked about, at
    # most AMEM_SWEEP_MODEL_CALLS a night; the rest wait for the next night.
    _coach, cue_words, car, sold = cue_words_and_a_sale
    config(sweep_model_calls=1)
    found(provider, (0, 1, 0), reason="the Civic was sold: Priya has no car now")
    wrote(alice)
    row = offline_sweep(alice)
    assert batches_sent(provider) == [[car.content, sold.content]]  # the top of the ranking only, older first
    pair = Pair.objects.get()
    assert (pair.older_id, pair.newer_id, pair.kind, pair.opened_by) == (car.pk, sold.pk, Pair.CONFLICT, "model")
    assert pair.reason == "the Civic was sold: Priya has no car now" and pair.superseded_id == car.pk
    assert row.counts["llm_calls"] == 1 and row.counts["deferred"] >= 1

    nothing(provider)  # the nights after: the model finds no change in the other pairs, one a night
    for _ in range(3):
        row = offline_sweep(alice)
        assert row.counts.get("llm_calls", 0) <= 1
    asked = [tuple(texts) for texts in batches_sent(provider)]
    assert len(asked) == len(set(asked)) >= 2  # each pair read once: not again until a note changes
    assert not Pair.objects.open().filter(newer=cue_words).exists()  # the model's word stands
    assert Pair.objects.filter(resolution="distinct", opened_by="model").exists()  # recorded as read


def test_with_a_model_a_failed_call_opens_nothing_and_the_pair_is_asked_again_next_night(
    alice, config, provider, cue_words_and_a_sale
):
    config(sweep_model_calls=5)
    provider.fail(500, role="conflict_scan")
    wrote(alice)
    row = offline_sweep(alice)
    failed = row.counts["llm_failed"]
    assert row.outcome == "partial" and failed == row.counts["llm_calls"] >= 2 and not Pair.objects.exists()
    assert not Note.objects.filter(conflict_scanned_at__isnull=False, pk=cue_words_and_a_sale[3].pk).exists()
    nothing(provider)
    again = offline_sweep(alice)
    assert again.outcome == "ok" and again.counts["llm_calls"] >= 1  # asked again, not dropped
