"""The text a reviewer's "same fact" writes: each sentence once, line breaks kept, the newer word last."""

from __future__ import annotations

import pytest

from engine.reading.merged_text import merged_text

TRIP = "Sarah is planning a trip for their family."


@pytest.mark.parametrize(
    "older, newer, merged",
    [
        # What the newer adds comes after the older text; what both say is said once.
        (TRIP, f"{TRIP} The teenagers are not avid hikers.", f"{TRIP} The teenagers are not avid hikers."),
        (
            f"{TRIP} The teenagers are not avid hikers.",
            f"{TRIP} They want to travel in July.",
            f"{TRIP} The teenagers are not avid hikers. They want to travel in July.",
        ),
        # A sentence repeated inside the older note is kept once.
        ("Ben is home. Ben is home. Ben went out.", "Ben went out.", "Ben is home. Ben went out."),
        # A newer sentence that says an older one in full and more takes its place.
        (
            "Alice waters the fern on Sundays.",
            "Alice waters the fern on Sundays before breakfast.",
            "Alice waters the fern on Sundays before breakfast.",
        ),
        # A newer sentence that contradicts an older one takes its place: never both.
        (
            "Ana works at Farfetch as a data engineer.",
            "Ana no longer works at Farfetch; she joined a bakery in Porto.",
            "Ana no longer works at Farfetch; she joined a bakery in Porto.",
        ),
        # A newer sentence that adds no word is left out.
        (
            "Alex enjoyed a wine bar in Neukölln.",
            "Alex mentioned a wine bar in Neukölln.",
            "Alex enjoyed a wine bar in Neukölln.",
        ),
        # Line breaks stay; what the newer adds keeps its own lines.
        (
            "Shopping list:\n- eggs\n- milk",
            "Shopping list:\n- milk\n- bread",
            "Shopping list:\n- eggs\n- milk\n- bread",
        ),
        # Chinese sentences join without a space.
        ("小明喜欢喝茶。", "小明喜欢喝茶。他每天早上跑步。", "小明喜欢喝茶。他每天早上跑步。"),
    ],
)
def test_merged_text(older, newer, merged):
    assert merged_text(older, newer) == merged
