"""Quality scan: too_short, expired reminders, filler, vague…; a note in a conflict is not counted here too."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from engine.maintenance.runner import run_step
from memories.models import SHARED_AGENT, Note, NoteEvent, Pair
from tests.engine.maintenance.conftest import put


def scan(agent):
    return run_step("quality_scan", agent)


def reasons(note: Note) -> list[str]:
    note.refresh_from_db()
    return note.low_quality_reasons if note.low_quality else []


def test_too_short_is_fewer_than_four_letters_or_digits_a_cjk_character_counting_three(alice):
    short = put(alice, "   ok!   ")
    fact = put(alice, "Mia is 7.")
    row = scan(alice)
    assert reasons(short) == ["too_short"] and reasons(fact) == []
    assert row.outcome == "ok" and row.counts == {"scanned": 2, "read_by_model": 2, "too_short": 1, "flagged": 1}


def test_an_ephemeral_note_expires_after_seven_days(alice):
    now = timezone.now()
    text = "Deploy is pending confirmation from ops"
    expired = put(alice, text, ephemeral=True, created_at=now - timedelta(days=7, minutes=1))
    fresh = put(alice, text + " again", ephemeral=True, created_at=now - timedelta(days=6, hours=23))
    durable = put(alice, "Alice has used Linux for twenty years", created_at=now - timedelta(days=400))
    scan(alice)
    assert reasons(expired) == ["expired_ephemeral"]
    assert reasons(fresh) == [] and reasons(durable) == []


def test_the_ephemeral_age_is_configurable(alice, config):
    config(ephemeral_days=2)
    three_days_ago = timezone.now() - timedelta(days=3)
    note = put(alice, "Deploy is pending confirmation from ops", ephemeral=True, created_at=three_days_ago)
    scan(alice)
    assert reasons(note) == ["expired_ephemeral"]


def test_a_note_in_a_conflict_is_not_counted_as_low_quality_too(alice):
    flagged = put(alice, "ok", low_quality=True, low_quality_reasons=["pending_conflict"])
    beside = put(alice, "Alice said okay to the Munich offer")
    a = put(alice, "hi")
    b = put(alice, "The office moved to Munich last year")
    settled_a = put(alice, "yo")
    settled_b = put(alice, "Bob takes the bus to work daily")
    Pair.objects.create(kind=Pair.CONFLICT, older=beside, newer=flagged, reason="said yes or not")
    Pair.objects.create(kind=Pair.CONFLICT, older=b, newer=a, reason="two cities")
    Pair.objects.create(kind=Pair.CONFLICT, older=settled_b, newer=settled_a, status=Pair.RESOLVED)
    scan(alice)
    assert (
        reasons(flagged) == reasons(beside) == reasons(a) == reasons(b) == []
    )  # an older scan's pending_conflict is removed
    assert reasons(settled_a) == ["too_short"] and reasons(settled_b) == []


def test_several_reasons_are_stored_together_with_an_event_and_no_reindex(alice):
    note = put(alice, "ok", ephemeral=True, created_at=timezone.now() - timedelta(days=30))
    scan(alice)
    note.refresh_from_db()
    assert note.low_quality and note.low_quality_reasons == ["too_short", "expired_ephemeral"]
    event = NoteEvent.objects.get(note=note)
    assert event.action == "flag" and event.actor == "amem:quality_scan"
    assert event.before == {"low_quality": False, "low_quality_reasons": []}
    assert event.after == {"low_quality": True, "low_quality_reasons": note.low_quality_reasons}
    # Quality flags are not part of the index: nothing to re-index.
    assert (note.index_dirty, note.revision) == (False, 1)


def test_a_second_scan_changes_nothing(alice):
    put(alice, "ok")
    put(alice, "hey thanks!!")
    first = scan(alice)
    events = NoteEvent.objects.count()
    second = scan(alice)
    assert first.counts["flagged"] == 2
    assert second.counts == {"scanned": 2} and NoteEvent.objects.count() == events


def test_a_reason_that_no_longer_holds_is_removed_and_others_reasons_are_kept(alice):
    a = put(alice, "ok")
    b = put(alice, "hi", low_quality=True, low_quality_reasons=["reviewer: vague"])
    scan(alice)
    assert reasons(a) == ["too_short"] and reasons(b) == ["reviewer: vague", "too_short"]
    for note in (a, b):
        Note.objects.filter(pk=note.pk).update(content="The office moved to Munich last year", revision=2)
    row = scan(alice)
    assert reasons(a) == [] and not Note.objects.get(pk=a.pk).low_quality
    assert reasons(b) == ["reviewer: vague"]
    assert row.counts["cleared"] == 1 and row.counts["flagged"] == 1
    assert NoteEvent.objects.filter(note=a, action="flag").count() == 2


def test_only_the_agents_own_active_notes_are_scanned(alice, bob):
    shared = put(alice, "ok", agent_id=SHARED_AGENT, readers=["*"])
    retired = put(alice, "hi", is_active=False)
    foreign = put(bob, "yo")
    row = scan(alice)
    assert reasons(shared) == ["too_short"]
    assert reasons(retired) == [] and reasons(foreign) == []
    assert row.counts["scanned"] == 1


def test_a_note_changed_during_the_scan_is_left_for_the_next_one(alice, monkeypatch):
    from engine.maintenance import quality

    note = put(alice, "ok")
    real = quality._save

    def edited_meanwhile(step, changes):
        Note.objects.filter(pk=note.pk).update(content="now long enough to keep", revision=2)
        real(step, changes)

    monkeypatch.setattr(quality, "_save", edited_meanwhile)
    scan(alice)
    assert reasons(note) == [] and not NoteEvent.objects.exists()


def test_a_reviewers_keep_is_not_undone_by_the_next_scan(alice, django_user_model):
    from engine.curation.actions import keep_quality, undo

    rita = django_user_model.objects.create_user("rita", is_staff=True)
    note = put(alice, "Deploy is pending confirmation", ephemeral=True, created_at=timezone.now() - timedelta(days=30))
    other = put(alice, "Deploy was confirmed by ops on Monday")
    scan(alice)
    note.refresh_from_db()
    keep = keep_quality(note, rita)
    scan(alice)
    assert reasons(note) == []
    # A conflict found after the reviewer's decision waits in the conflict queue, not here.
    Pair.objects.create(kind=Pair.CONFLICT, older=other, newer=note)
    scan(alice)
    assert reasons(note) == []
    # Undoing the keep brings the reviewer's dismissed reasons back, and the scan leaves them.
    Pair.objects.all().delete()
    Note.objects.filter(pk=note.pk).update(low_quality=False, low_quality_reasons=[])
    undo(keep, rita, may_review=lambda agent_id: True)
    scan(alice)
    assert reasons(note) == ["expired_ephemeral"]


def test_small_talk_and_reminders_whose_moment_passed_are_flagged_in_both_languages(alice):
    now = timezone.now()
    filler = [put(alice, t) for t in ("Thanks, Jon! See you soon!", "好的好的", "哈哈哈哈", "ok 收到 👍")]
    old = now - timedelta(days=10)
    expired = [
        put(alice, t, created_at=old)
        for t in (
            "Remind me to call the dentist tomorrow",
            "TODO tonight: send Mel the pics",
            "明天上午九点带猫去宠物医院",
        )
    ]
    ahead = put(alice, "Remind me to renew the passport next month", created_at=now - timedelta(days=3))
    fine = [
        put(alice, t)
        for t in (
            "Mia is 7.",
            "我不吃香菜。",
            "Caroline's wedding was on 14 May 2023.",
            "Thanks to Jon, I now run 5 km daily.",
        )
    ]
    scan(alice)
    assert all(reasons(n) == ["filler"] for n in filler)
    assert all(reasons(n) == ["expired_ephemeral"] for n in expired)
    assert reasons(ahead) == [] and all(reasons(n) == [] for n in fine)


def test_a_habit_a_standing_schedule_or_a_chat_turn_never_expires_but_a_one_off_moment_does(alice, config):
    # Read by hand on a real store, recurring schedules were among the notes flagged as expired
    # reminders: "every Tuesday at 6pm" never passes.
    config(quality_model=False)  # the rule alone
    old = timezone.now() - timedelta(days=30)
    standing = [
        put(alice, t, created_at=old)
        for t in (
            "We have yoga every Tuesday at 6pm.",
            "Melanie: I go to the support group on Fridays at 7pm.",
            "I always call my mom on Sundays at 8pm",
            "每周四下午3点都有钢琴课。",
        )
    ]
    chat_turn = put(
        alice,
        "Joanna: Cool, Nate! Gonna give it a go. Dairy-free is a must for me, especially for desserts. Last Friday, "
        "I made a lovely dessert with almond milk and it was good! Got any favourites when it comes to dairy-free?",
        created_at=old,
    )
    once = [put(alice, t, created_at=old) for t in ("Dentist next Friday at 3pm", "Skype w/ Tim tomorrow 4pm")]
    scan(alice)
    assert all(reasons(n) == [] for n in [*standing, chat_turn])  # a long chat turn is no reminder either
    assert all(reasons(n) == ["expired_ephemeral"] for n in once)


def test_a_note_the_quality_model_finds_worth_little_is_flagged_once_read_again_only_after_an_edit(alice, monkeypatch):
    read: list[str] = []

    def verdicts(texts: list[str]) -> list[float]:
        read.extend(texts)
        return [0.99 if "check it out" in t else 0.01 for t in texts]

    monkeypatch.setattr("engine.maintenance.quality.likelihoods", verdicts)
    chatty = put(alice, "Nate: Cool! I'll definitely check it out. Thanks for the recommendation!")
    fact = put(alice, "My sister Ana moved to Lisbon in March.")
    row = scan(alice)
    assert reasons(chatty) == ["little_to_keep"] and reasons(fact) == []
    assert row.counts["read_by_model"] == 2 and row.counts["little_to_keep"] == 1

    read.clear()
    row = scan(alice)  # nothing changed: the stored verdict stands, nothing is read again
    assert read == [] and reasons(chatty) == ["little_to_keep"] and "read_by_model" not in row.counts

    Note.objects.filter(pk=chatty.pk).update(content="Nate: I adopted a beagle called Max.", revision=2)
    scan(alice)
    assert read == ["Nate: I adopted a beagle called Max."] and reasons(chatty) == []


def test_a_rule_that_names_the_problem_speaks_instead_of_the_model_and_the_model_can_be_switched_off(
    alice, monkeypatch, config
):
    monkeypatch.setattr("engine.maintenance.quality.likelihoods", lambda texts: [0.99] * len(texts))
    filler = put(alice, "好的好的")
    chatty = put(alice, "Wow, that is amazing news, I am so happy for you!")
    scan(alice)
    assert reasons(filler) == ["filler"] and reasons(chatty) == ["little_to_keep"]

    config(quality_model=False)
    row = scan(alice)
    assert reasons(chatty) == [] and "read_by_model" not in row.counts

    config(quality_model=True)  # switched back on, it reads the notes again rather than trust a dropped verdict
    row = scan(alice)
    assert reasons(chatty) == ["little_to_keep"] and row.counts["read_by_model"] == 2


def test_force_makes_the_model_read_every_note_again_as_after_a_refit(alice, monkeypatch):
    verdicts = {"first": 0.01}
    monkeypatch.setattr("engine.maintenance.quality.likelihoods", lambda texts: [verdicts["first"]] * len(texts))
    note = put(alice, "Wow, that is amazing news, I am so happy for you!")
    scan(alice)
    assert reasons(note) == []
    verdicts["first"] = 0.99  # new weights
    assert "read_by_model" not in scan(alice).counts and reasons(note) == []
    row = run_step("quality_scan", alice, options={"force": True})
    assert row.counts["read_by_model"] == 1 and reasons(note) == ["little_to_keep"]


def test_the_models_new_flags_a_night_stay_within_the_budget_the_likeliest_first_the_rest_wait(
    alice, monkeypatch, config
):
    """A raw-chat store gives the model hundreds of notes it would flag: a person is shown at most
    ``quality_budget`` new ones a night, the likeliest first, and the others come on later nights
    without being read again. A rule's reason is not budgeted."""
    read: list[str] = []
    odds = {"chat 1": 0.90, "chat 2": 0.99, "chat 3": 0.95, "chat 4": 0.85, "a fact": 0.10}

    def likelihoods(texts: list[str]) -> list[float]:
        read.extend(texts)
        return [odds.get(t.split(":")[0], 0.99) for t in texts]

    monkeypatch.setattr("engine.maintenance.quality.likelihoods", likelihoods)
    config(quality_budget=2)
    texts = {
        "chat 1": "chat 1: haha the weather was wild today, rain then sun",
        "chat 2": "chat 2: lol my cat knocked the plant over again",
        "chat 3": "chat 3: ugh Mondays, coffee first and then we will see",
        "chat 4": "chat 4: nice, that bakery on the corner sounds lovely",
        "a fact": "a fact: my sister Ana moved to Lisbon in March",
    }
    notes = {key: put(alice, text) for key, text in texts.items()}
    rule = put(alice, "好的好的")  # filler: a rule's reason

    row = scan(alice)
    flagged = lambda: {k for k, n in notes.items() if reasons(n) == ["little_to_keep"]}  # noqa: E731
    assert flagged() == {"chat 2", "chat 3"} and reasons(rule) == ["filler"]
    assert row.counts["little_to_keep"] == 2 and row.counts["over_budget"] == 2
    assert len(read) == 6  # every note read once
    assert Note.objects.get(pk=notes["chat 1"].pk).quality_likelihood == 0.90

    read.clear()
    row = scan(alice)  # the next night: the two that waited, without reading them again
    assert flagged() == {"chat 1", "chat 2", "chat 3", "chat 4"} and read == []
    assert row.counts["little_to_keep"] == 2 and "over_budget" not in row.counts
    assert NoteEvent.objects.filter(note=notes["chat 4"], action="flag").count() == 1

    config(quality_budget=0)
    later = put(alice, "chat 1: whatever, the football match was boring anyway")
    scan(alice)
    assert reasons(later) == [] and flagged() == {"chat 1", "chat 2", "chat 3", "chat 4"}  # flags already raised stay
