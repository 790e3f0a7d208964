"""The final cut spreads over sessions before one session's neighbours fill it (engine/retrieval/cover.py)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.retrieval.cover import cover_sessions


@dataclass(frozen=True)
class Item:
    name: str
    session: str


def names(items) -> list[str]:
    return [i.name for i in items]


RANKED = [Item("a1", "s1"), Item("a2", "s1"), Item("a3", "s1"), Item("b1", "s2"), Item("m", ""), Item("c1", "s3")]


def test_a_session_holds_its_cap_until_the_others_had_their_turn():
    assert names(cover_sessions(RANKED, 4, cap=2)) == ["a1", "a2", "b1", "m"]


def test_held_turns_fill_the_slots_left_in_their_ranked_place():
    assert names(cover_sessions(RANKED, 5, cap=1)) == ["a1", "a2", "b1", "m", "c1"]
    assert names(cover_sessions(RANKED, 6, cap=1)) == ["a1", "a2", "a3", "b1", "m", "c1"]


def test_notes_without_a_session_are_never_held_back():
    unsessioned = [Item(f"n{i}", "") for i in range(5)]
    assert names(cover_sessions(unsessioned, 3, cap=1)) == ["n0", "n1", "n2"]


def test_cap_zero_keeps_the_ranked_order():
    assert names(cover_sessions(RANKED, 3, cap=0)) == ["a1", "a2", "a3"]
