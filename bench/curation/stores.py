"""Real-chat stores for the review queues: which chat goes into which store, and in what order.

A store is what one agent holds after a real conversation history is written through the
API: chat turns as they were said ("Caroline: I went to a support group yesterday."), with
their dates, and memory events where the source has them. The sweep's candidates on such a
store (each new note against its nearest notes) are what a reviewer meets; they are labelled
blind (bench/curation/sets/real/README.md) and the scale row is measured on held-out stores.

Sources (public; offline evaluation only):

* LoCoMo (snap-research/LoCoMo, CC BY-NC 4.0): ten long multi-session chats in English;
* MADial-Bench (MIT): Chinese and English chats of a user with an assistant, and Chinese memory events;
* KdConv (thu-coai/KdConv, Apache-2.0): Chinese chat about films, music and travel. Not in
  the repository; ``KDCONV_DATA`` names a folder holding its ``film/``, ``music/`` and ``travel/``.

The split is by source and by conversation: the ``fit`` store's chats are never in a ``held`` store.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path

LOCOMO_FIT = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
LOCOMO_HELD = ("conv-44", "conv-47", "conv-48", "conv-49", "conv-50")
T0 = dt.datetime(2023, 1, 2, 10, 0, tzinfo=dt.UTC)


def bench_data() -> Path:
    return Path(os.environ.get("AMEM_BENCH_DATA", "../shared/bench"))


def _locomo_date(text: str) -> dt.datetime:
    # "1:56 pm on 8 May, 2023"
    return dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=dt.UTC)


def locomo_turns(sample_ids: tuple[str, ...]) -> list[dict]:
    rows: list[dict] = []
    for sample in json.loads((bench_data() / "locomo10.json").read_text(encoding="utf-8")):
        if sample["sample_id"] not in sample_ids:
            continue
        conv = sample["conversation"]
        n = 1
        while f"session_{n}" in conv:
            at = _locomo_date(conv[f"session_{n}_date_time"])
            for i, turn in enumerate(conv[f"session_{n}"]):
                rows.append(
                    {
                        "text": f"{turn['speaker']}: {turn['text']}",
                        "at": (at + dt.timedelta(minutes=i)).isoformat(),
                        "source": f"locomo {sample['sample_id']} {turn['dia_id']}",
                        "lang": "en",
                    }
                )
            n += 1
    return rows


_LINE = re.compile(r'^<([^>]+)>\s*:\s*"?(.*?)"?\s*$')


def madial_turns(lang: str, dialogues: range) -> list[dict]:
    """The user's turns of MADial dialogues (the assistant's are generic comfort)."""
    path = bench_data() / "madial" / f"MADial-Bench-{lang}-dialogue.json"
    rows: list[dict] = []
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if index not in dialogues or not line.strip():
            continue
        dialogue = json.loads(line)
        at = T0 + dt.timedelta(days=index * 2)
        for i, raw in enumerate(dialogue["dialogue"]):
            found = _LINE.match(raw.strip())
            if not found or found.group(1) == "Assistant":
                continue
            rows.append(
                {
                    "text": f"{found.group(1)}: {found.group(2)}",
                    "at": (at + dt.timedelta(minutes=i)).isoformat(),
                    "source": f"madial-{lang} dialogue {index + 1} turn {i}",
                    "lang": lang,
                }
            )
    return rows


def madial_events(users: range) -> list[dict]:
    path = bench_data() / "madial" / "MADial-Bench-zh-memory.json"
    rows: list[dict] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for event in json.loads(line).values():
            if int(event["user-id"]) in users:
                rows.append(
                    {
                        "text": event["event"],
                        "at": f"{event['time']}T10:00:00+00:00",
                        "source": f"madial-zh memory {event['id']}",
                        "lang": "zh",
                    }
                )
    return rows


def kdconv_turns(domain: str, part: str, limit: int) -> list[dict]:
    folder = Path(os.environ.get("KDCONV_DATA", "/tmp/kdconv"))
    path = folder / domain / f"{part}.json"
    if not path.exists():
        raise SystemExit(f"KdConv not found at {path}: set KDCONV_DATA to a folder with film/, music/, travel/")
    rows: list[dict] = []
    for index, dialogue in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        at = T0 + dt.timedelta(days=index)
        for i, message in enumerate(dialogue["messages"]):
            speaker = "甲" if i % 2 == 0 else "乙"
            rows.append(
                {
                    "text": f"{speaker}: {message['message']}",
                    "at": (at + dt.timedelta(minutes=i)).isoformat(),
                    "source": f"kdconv {domain}/{part} {index} turn {i}",
                    "lang": "zh",
                }
            )
            if len(rows) >= limit:
                return rows
    return rows


def store(name: str) -> list[dict]:
    """The rows of a named store, oldest first."""
    if name == "fit-locomo-kdconv":
        rows = locomo_turns(LOCOMO_FIT) + kdconv_turns("film", "dev", 1400) + kdconv_turns("travel", "dev", 1400)
    elif name == "held-locomo-madial":
        rows = locomo_turns(LOCOMO_HELD) + madial_turns("zh", range(160)) + madial_events(range(10**6))
    elif name == "held-kdconv-madial-en":
        rows = kdconv_turns("music", "test", 1600) + madial_turns("en", range(160))
    else:
        raise SystemExit(f"unknown store {name!r}: one of {', '.join(STORES)}")
    return sorted(rows, key=lambda r: r["at"])


STORES = ("fit-locomo-kdconv", "held-locomo-madial", "held-kdconv-madial-en")
