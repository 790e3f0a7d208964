"""LLM mode against the fake provider: importance and triples ride in the construct call.

Budget per write (docs/memory-layers.md): at most 3 model calls and 1,200 tokens, prompt and
reply counted with the tokenizer the recall bundle uses (engine/layers/tokens.py).
"""

from __future__ import annotations

import json

from engine.layers import tokens
from memories.models import Fact, Note

CONSTRUCT_1 = {
    "keywords": ["Alex", "Berlin", "apartment"],
    "tags": ["home", "personal"],
    "context": "Alex lives in Berlin in a flat near the river.",
    "category": "Personal",
    "note_type": "memory",
    "topics": [],
    "confidence": "high",
    "importance": 7,
    "facts": [["Alex", "lives_in", "Berlin"], {"subject": "Alex", "relation": "owns", "object": "a bicycle"}],
}
CONSTRUCT_2 = {
    **CONSTRUCT_1,
    "context": "Alex moved to Lisbon.",
    "importance": "8",
    "facts": [["Alex", "lives_in", "Lisbon"]],
}


def _write(as_alice, provider, text: str, construct: dict, link_reply: str = '{"links": []}'):
    before = len(provider.requests)
    provider.reply_json(construct, role="construct")
    provider.reply(link_reply, role="link")
    r = as_alice.post("/memories", {"text": text})
    assert r.status_code == 201, r.content
    calls = provider.requests[before:]
    replies = {"construct": json.dumps(construct), "link": link_reply}
    used = sum(tokens.count(c.prompt) + tokens.count(replies.get(c.role or "", "")) for c in calls)
    return r.json()["id"], calls, used


def test_a_write_stays_within_three_calls_and_1200_tokens(as_alice, provider, store):
    first, calls1, used1 = _write(
        as_alice, provider, "Alex lives in Berlin in a flat near the river, with a bicycle.", CONSTRUCT_1
    )
    second, calls2, used2 = _write(
        as_alice, provider, "Alex has just moved from Berlin to Lisbon for a new job at a startup.", CONSTRUCT_2
    )
    for calls, used in ((calls1, used1), (calls2, used2)):
        assert len(calls) <= 3, [c.role for c in calls]
        assert used <= 1200, used
        assert next(c.role for c in calls) == "construct"
        assert "importance" not in {c.role for c in calls} and "facts" not in {c.role for c in calls}
    # Importance and triples came from the construct reply, not an extra call.
    assert Note.objects.get(pk=first).importance == 7
    assert Note.objects.get(pk=second).importance == 8
    berlin = Fact.objects.get(object="Berlin")
    lisbon = Fact.objects.get(object="Lisbon")
    assert (berlin.origin, berlin.sources, berlin.superseded_by) == ("llm", [first], lisbon)
    assert berlin.invalid_at == Note.objects.get(pk=second).created_at
    assert Fact.objects.get(relation="owns").invalid_at is None
    print(f"calls per write {len(calls1)}, {len(calls2)}; tokens per write {used1}, {used2}")


def test_without_importance_from_the_model_the_offline_rating_fills_in(as_alice, provider, store):
    reply = {k: v for k, v in CONSTRUCT_1.items() if k not in ("importance", "facts")}
    note_id, _calls, _ = _write(as_alice, provider, "I live in Munich. I work at Siemens as an engineer.", reply)
    assert 1 <= Note.objects.get(pk=note_id).importance <= 10
    # No triples from the model: the offline patterns step in, labelled as such.
    assert {(f.relation, f.object, f.origin) for f in Fact.objects.all()} == {
        ("lives_in", "Munich", "offline"),
        ("works_at", "Siemens", "offline"),
    }


def test_an_episode_is_summarised_by_one_model_call(as_alice, provider, store):
    turns = [
        {"text": "Let's plan the Porto trip for the conference.", "session": "s1"},
        {"text": "We decided to take the train on Friday.", "session": "s1"},
    ]
    as_alice.post("/conversations", {"turns": turns})
    before = len(provider.requests)
    provider.reply_json(
        {
            "summary": "The user planned the Porto trip and chose the train.",
            "decisions": ["Train on Friday."],
            "open_items": ["Hotel not booked."],
            "topics": ["travel", "Porto"],
            "mood": "positive",
        },
        role="episode",
    )
    body = as_alice.post("/episodes/close", {"session": "s1"}).json()
    assert [r.role for r in provider.requests[before:]] == ["episode"]
    assert "The user planned the Porto trip and chose the train." in body["summary"]
    assert "Open items: Hotel not booked." in body["summary"] and "Mood: positive." in body["summary"]


def test_a_model_reflection_keeps_only_citations_of_notes_it_was_shown(as_alice, alice, provider, store):
    from engine.layers import reflection

    for text in (
        "Alex drinks green tea every morning before work.",
        "The team moved the weekly sync to Thursday afternoons.",
        "Alex asked whether the Kyoto tea shop ships abroad.",
    ):
        provider.reply_json(CONSTRUCT_1, role="construct")
        as_alice.post("/memories", {"text": text})
    provider.reply_json({"reflection": "Tea keeps coming up.", "cites": [0, 2, 7, "x", 2]}, role="reflect")
    note = reflection.reflect(alice)
    assert note is not None and reflection.STAND_IN not in note.content and "Tea keeps coming up." in note.content
    shown = list(Note.objects.filter(owner="alice", layer="").order_by("-created_at", "-pk"))
    assert reflection.cited_by(note) == [str(shown[0].pk), str(shown[2].pk)]
