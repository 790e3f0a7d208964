"""Test texts that do not resemble each other, so L2 dedup (cosine ≥ 0.85) never folds one into another."""

from __future__ import annotations

import random

WORDS = [
    "anchor",
    "basket",
    "candle",
    "desert",
    "engine",
    "falcon",
    "garden",
    "harbor",
    "island",
    "jacket",
    "kettle",
    "ladder",
    "marble",
    "needle",
    "orchard",
    "pepper",
    "quartz",
    "ribbon",
    "saddle",
    "tunnel",
    "umbrella",
    "velvet",
    "walnut",
    "yogurt",
    "zipper",
    "bridge",
    "cactus",
    "dolphin",
    "ember",
    "fossil",
    "glacier",
    "hammer",
    "iceberg",
    "jungle",
    "kayak",
    "lantern",
    "meadow",
    "nectar",
    "oyster",
    "pebble",
    "quiver",
    "rocket",
    "spiral",
    "thunder",
    "unicorn",
    "violin",
    "whistle",
    "lemon",
    "mirror",
    "copper",
]


def unrelated_words(seed: int, n: int) -> str:
    return ", ".join(random.Random(seed).sample(WORDS, n))
