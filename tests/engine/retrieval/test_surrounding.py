"""A match carries the turns around it; a neighbour shown there takes no result slot of its own."""

from __future__ import annotations

import datetime as dt

from engine.index_sync.indexer import sync_dirty
from engine.retrieval.search import Ranking, search
from engine.retrieval.surrounding import ADJACENT
from engine.write.conversation import Turn, add_conversation
from memories.models import Link, Note


class Bare(Ranking):
    context_span = 0


class OneEachWay(Ranking):
    context_span = 1


WHEN = dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)


def chat() -> list[Turn]:
    # Every turn of a session shares the session's time, as LoCoMo's do: order comes from the links.
    first = [
        ('Melanie said, "Hi Caroline, how was your week?"', "D1:1"),
        ('Caroline said, "Busy! I finally went kayaking on the river."', "D1:2"),
        ('Melanie said, "Kayaking! Was the river calm?"', "D1:3"),
        ('Caroline said, "Very calm, we saw herons near the bridge."', "D1:4"),
        ('Melanie said, "Lovely. I baked sourdough bread all weekend."', "D1:5"),
    ]
    second = [('Caroline said, "The herons came back to the river today."', "D2:1")]
    turns = [Turn(text, "s1", source, WHEN) for text, source in first]
    return turns + [Turn(text, "s2", source, WHEN + dt.timedelta(days=3)) for text, source in second]


def source(note: Note) -> str:
    return note.sources[0]


def stored(agent) -> dict[str, Note]:
    add_conversation(agent, chat())
    sync_dirty()
    return {source(n): n for n in Note.objects.filter(agent_id=agent.pk)}


def test_a_match_carries_the_turns_before_and_after_it_in_order(alice, store):
    stored(alice)
    results = search("sourdough bread", alice, limit=1, heat=False, links=False)
    assert source(results[0].note) == "D1:5"
    # The session's last turn: only turns before it (the next session is another conversation),
    # earliest first, two each way by default.
    assert [(source(s.note), s.position, s.distance) for s in results[0].surrounding] == [
        ("D1:3", "before", 2),
        ("D1:4", "before", 1),
    ]

    middle = search("kayaking river calm", alice, limit=1, heat=False, links=False)[0]
    index = int(source(middle.note).split(":")[1])
    assert index in (2, 3)
    expected = [f"D1:{i}" for i in range(max(1, index - 2), min(5, index + 2) + 1) if i != index]
    assert [source(s.note) for s in middle.surrounding] == expected
    assert [s.position for s in middle.surrounding] == ["before" if int(e[3:]) < index else "after" for e in expected]


def test_one_turn_each_way_when_the_ranking_says_so(alice, store):
    stored(alice)
    [result] = search("sourdough bread", alice, limit=1, heat=False, links=False, ranking=OneEachWay())
    assert [(source(s.note), s.position) for s in result.surrounding] == [("D1:4", "before")]


def test_a_turn_shown_around_a_match_is_not_a_match_of_its_own(alice, store):
    stored(alice)
    results = search("herons river kayaking calm", alice, limit=4, heat=False, links=False)
    shown = [source(r.note) for r in results]
    around = {source(s.note) for r in results for s in r.surrounding}
    assert not set(shown) & around  # each note once: as a match or beside one
    assert len(shown) == len(set(shown))
    # With the surrounding turns off, the neighbours compete for the slots as before.
    bare = search("herons river kayaking calm", alice, limit=4, heat=False, links=False, ranking=Bare())
    assert all(r.surrounding == [] for r in bare)
    assert len({source(r.note) for r in bare} & {"D1:2", "D1:3", "D1:4"}) >= 2


def test_a_retired_turn_is_never_shown_around_a_match(alice, store):
    notes = stored(alice)
    Note.objects.filter(pk=notes["D1:4"].pk).update(is_active=False)
    results = search("sourdough bread", alice, limit=1, heat=False, links=False)
    assert source(results[0].note) == "D1:5"
    # The retired turn is left out; the turn before it is still two turns away, and readable.
    assert [(source(s.note), s.distance) for s in results[0].surrounding] == [("D1:3", 2)]


def test_another_agents_search_sees_no_turns_of_this_one(alice, bob, store):
    notes = stored(alice)
    add_conversation(bob, [Turn('Bob said, "My sourdough bread came out flat."', "b1", "B1:1", WHEN)])
    sync_dirty()
    [bobs] = Note.objects.filter(agent_id=bob.pk)
    # A link into alice's private turn, as a bad import could leave: only access decides what is shown.
    Link.objects.create(source=bobs, target=notes["D1:4"], reason=ADJACENT)
    Link.objects.create(source=notes["D1:4"], target=bobs, reason=ADJACENT)
    [result] = search("sourdough bread", bob, limit=3, heat=False, links=False)
    assert result.note.pk == bobs.pk
    assert result.surrounding == []
