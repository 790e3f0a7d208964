"""Facts with validity: contradiction closes, as_of looks back, graph depth, offline extraction, isolation."""

from __future__ import annotations

from engine.annotations import facts
from memories.models import Fact

MAY = "2026-05-01T00:00:00+00:00"
JUNE = "2026-06-01T00:00:00+00:00"


def test_contradicting_fact_closes_the_old_one_and_as_of_still_sees_it(as_alice):
    old = as_alice.post("/facts", {"subject": "Alex", "relation": "lives in", "object": "Berlin", "valid_from": MAY})
    assert old.status_code == 201 and old.json()["relation"] == "lives_in"
    new = as_alice.post("/facts", {"subject": "alex", "relation": "lives_in", "object": "Lisbon", "valid_from": JUNE})
    closed = Fact.objects.get(pk=old.json()["id"])
    assert closed.invalid_at.isoformat() == JUNE and closed.superseded_by_id == new.json()["id"]
    assert Fact.objects.count() == 2  # closed, not deleted
    now = as_alice.get("/facts?entity=Alex").json()["facts"]
    assert [f["object"] for f in now] == ["Lisbon"]
    then = as_alice.get("/facts?entity=Alex&as_of=2026-05-15T00:00:00Z").json()["facts"]
    assert [(f["object"], f["invalid_at"] is not None) for f in then] == [("Berlin", True)]


def test_multi_valued_relations_do_not_close_each_other(alice):
    facts.add_fact(alice, "Alex", "likes", "tea")
    facts.add_fact(alice, "Alex", "likes", "jazz")
    assert sorted(f.object for f in facts.graph_query(alice, "alex")) == ["jazz", "tea"]


def test_a_late_report_of_an_earlier_state_is_closed_at_the_current_ones_start(alice):
    import datetime as dt

    june = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
    may = dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    current = facts.add_fact(alice, "Alex", "works_at", "Acme", valid_from=june)
    earlier = facts.add_fact(alice, "Alex", "works_at", "Initech", valid_from=may)
    current.refresh_from_db()
    assert current.invalid_at is None and earlier.invalid_at == june


def test_graph_query_depth_one_and_two(as_alice):
    for s, r, o in (("Alex", "works_at", "Acme"), ("Acme", "located_in", "Porto"), ("Porto", "in_country", "Portugal")):
        assert as_alice.post("/facts", {"subject": s, "relation": r, "object": o}).status_code == 201
    one = {(f["subject"], f["object"]) for f in as_alice.get("/facts?entity=alex&depth=1").json()["facts"]}
    two = {(f["subject"], f["object"]) for f in as_alice.get("/facts?entity=alex&depth=2").json()["facts"]}
    three = as_alice.get("/facts?entity=alex&depth=3").json()["facts"]
    assert one == {("Alex", "Acme")}
    assert two == {("Alex", "Acme"), ("Acme", "Porto")}
    assert len(three) == 3
    assert as_alice.get("/facts?entity=alex&depth=4").status_code == 400


def test_bad_facts_are_400_and_write_nothing(as_alice):
    for body in (
        {"subject": "", "relation": "likes", "object": "tea"},
        {"subject": "A", "relation": "!!", "object": "tea"},
        {"subject": "A", "relation": "likes", "object": "tea", "sources": ["not-a-note"]},
        {"subject": "A", "relation": "likes", "object": "tea", "valid_from": "yesterday"},
    ):
        assert as_alice.post("/facts", body).status_code == 400, body
    assert Fact.objects.count() == 0


def test_another_agents_facts_are_invisible(as_alice, as_bob):
    as_alice.post("/facts", {"subject": "Alex", "relation": "lives_in", "object": "Berlin"})
    assert as_bob.get("/facts?entity=Alex").json() == {"facts": []}
    # Bob's contradicting fact is his own; Alice's stays current.
    as_bob.post("/facts", {"subject": "Alex", "relation": "lives_in", "object": "Rome"})
    assert [f["object"] for f in as_alice.get("/facts?entity=Alex").json()["facts"]] == ["Berlin"]


def test_offline_patterns_extract_only_plain_statements():
    found = facts.extract_patterns(
        "I moved to Lisbon last month. Sam works at Acme Corp and is 34 years old.", ["alex"]
    )
    assert ("alex", "lives_in", "Lisbon") in [(t.subject, t.relation, t.object) for t in found]
    assert ("Sam", "works_at", "Acme Corp") in [(t.subject, t.relation, t.object) for t in found]
    assert facts.extract_patterns("We talked about the weather and lunch.") == []
    # A captured turn's speaker is its "I" (the OpenClaw plugin writes "User: …"), unless the
    # note has exactly one subject.
    assert [(t.subject, t.relation, t.object) for t in facts.extract_patterns("User: I moved to Lisbon in May.")] == [
        ("User", "lives_in", "Lisbon")
    ]
    assert [
        (t.subject, t.relation, t.object) for t in facts.extract_patterns("User: I moved to Lisbon.", ["alex"])
    ] == [("alex", "lives_in", "Lisbon")]


def test_a_written_note_yields_offline_facts_citing_it(as_alice, store):
    created = as_alice.post("/memories", {"text": "I moved to Lisbon in May for the new job.", "subjects": ["alex"]})
    fact = Fact.objects.get()
    assert (fact.subject, fact.relation, fact.object, fact.origin) == ("alex", "lives_in", "Lisbon", "offline")
    assert fact.sources == [created.json()["id"]]


def test_conversation_turns_yield_facts_by_speaker_and_time(as_alice, store):
    # "Memory just happens": captured turns feed the fact layer too, with no model, each fact
    # dated by its turn, so a later move closes the earlier one.
    turns = [
        {"text": "Caroline: I moved to Lisbon for the new job.", "session": "s1", "occurred_at": MAY},
        {"text": "Mel: That's great, how is it going?", "session": "s1", "occurred_at": MAY},
        {"text": "Caroline: I just moved to Porto, closer to family!", "session": "s2", "occurred_at": JUNE},
    ]
    stored = as_alice.post("/conversations", {"turns": turns})
    assert stored.status_code == 201
    ids = stored.json()["ids"]
    now = as_alice.get("/facts?entity=Caroline").json()["facts"]
    assert [(f["object"], f["sources"], f["origin"]) for f in now] == [("Porto", [ids[2]], "offline")]
    then = as_alice.get("/facts?entity=Caroline&as_of=2026-05-15T00:00:00Z").json()["facts"]
    assert [(f["object"], f["sources"]) for f in then] == [("Lisbon", [ids[0]])]


def test_an_episodic_event_yields_facts_and_its_subject_is_the_i(as_alice, store):
    created = as_alice.post("/memories/episodic", {"text": "I am 34 years old as of today.", "subjects": ["sam"]})
    fact = Fact.objects.get()
    assert (fact.subject, fact.relation, fact.object, fact.sources) == ("sam", "is_age", "34", [created.json()["id"]])


def test_a_conversation_refused_whole_leaves_no_fact(as_alice, store):
    turns = [{"text": "Caroline: I moved to Lisbon for the new job.", "occurred_at": "2026-05-01T00:00:00"}]  # no zone
    assert as_alice.post("/conversations", {"turns": turns}).status_code == 400
    assert not Fact.objects.exists()
