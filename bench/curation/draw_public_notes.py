"""Draw chat turns from public support-chat data for blind quality labelling (the fit split).

    .venv/bin/python -m bench.curation.draw_public_notes OUT_DIR --esconv TSV --smile DIR [--kdconv DIR]

The quality model (engine/judgments/note_quality.py) is fitted on notes of several sources so
that it reads a chat turn, not one corpus's style. Besides the stores' own sources
(bench/curation/draw_notes.py) it draws, seeded and uniform, ``n`` user turns from each of:

* ``esconv``: ESConv's help seekers (thu-coai/Emotional-Support-Conversation,
  codes/dataset/testWithStrategy_short.tsv, CC BY-NC 4.0), English;
* ``smile``: SMILE's clients (qiuhuachuan/smile, data/*.json, CC0), Chinese;
* ``kdconv-test``: KdConv film and travel *test* dialogues (the fit store writes the dev ones).

Neither public set has dates, so each turn gets a seeded day of 2025: the annotator's
``expired`` label needs one, and no source carries a reminder whose day would matter.
A text some q*-notes file already holds is never drawn again, so a second draw from a source
(another split of ESConv, other SMILE dialogues) adds only new notes. Each line of
``OUT_DIR/SOURCE-input.jsonl`` has an id, the text as a store writes a chat turn
(speaker, colon, turn) and the day: what an annotator sees (bench/curation/sets/real/TASK-notes.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from pathlib import Path

from bench.curation.sets import SETS, read_jsonl, write_jsonl


def esconv_turns(path: Path) -> list[str]:
    """The seekers' distinct turns: each TSV line is a dialogue so far, turns joined by `` EOS ``."""
    seen: dict[str, None] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        for turn in line.split(" EOS "):
            weight_speaker_index_text = turn.strip().split(" ", 3)
            if len(weight_speaker_index_text) == 4 and weight_speaker_index_text[1] == "0":
                seen.setdefault(f"User: {weight_speaker_index_text[3].strip()}")
    return list(seen)


def smile_turns(folder: Path) -> list[str]:
    turns = []
    for path in sorted(folder.glob("*.json")):
        for turn in json.loads(path.read_text(encoding="utf-8")):
            if turn["role"] == "client" and turn["content"].strip():
                turns.append(f"用户: {turn['content'].strip()}")
    return turns


def kdconv_test_turns(folder: Path) -> list[str]:
    turns = []
    for domain in ("film", "travel"):
        for dialogue in json.loads((folder / domain / "test.json").read_text(encoding="utf-8")):
            for i, message in enumerate(dialogue["messages"]):
                turns.append(f"{'甲乙'[i % 2]}: {message['message'].strip()}")
    return turns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--esconv", type=Path)
    parser.add_argument("--smile", type=Path)
    parser.add_argument("--kdconv", type=Path)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261203)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # A text already labelled (any q*-notes file) is never drawn again.
    labelled = {r["text"] for path in (SETS / "real").glob("q*-notes.jsonl") for r in read_jsonl(path)}
    loaders = {
        "esconv": (args.esconv, esconv_turns),
        "smile": (args.smile, smile_turns),
        "kdconv-test": (args.kdconv, kdconv_test_turns),
    }
    for source, (path, load) in loaders.items():
        if path is None:
            continue
        turns = [t for t in load(path) if t not in labelled]
        rng = random.Random(f"{args.seed}-{source}")
        drawn = rng.sample(turns, min(args.n, len(turns)))
        days = sorted(dt.date(2025, 1, 1) + dt.timedelta(days=rng.randrange(365)) for _ in drawn)
        rows = [
            {"id": f"{source}-{i:04d}", "text": t, "at": d.isoformat()}
            for i, (t, d) in enumerate(zip(drawn, days, strict=True), 1)
        ]
        write_jsonl(out / f"{source}-input.jsonl", rows)
        print(f"{source}: {len(drawn)} of {len(turns)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
