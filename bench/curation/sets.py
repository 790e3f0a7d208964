"""The curation evaluation's labelled sets: which file, which author, and whether it was tuned on.

Two kinds of sets live in bench/curation/sets/:

* ``dev``: the developers' own sets (pairs.jsonl, notes.jsonl), built by bench/curation/build.py
  from templates and hand-written rows by the people who wrote the rules. Every rule was tuned
  on them; a figure on them says little about data nobody tuned on.
* ``blind/``: written from real chat data (LoCoMo, MADial-Bench) by annotators who were given
  only the labelling task (blind/TASK-pairs.md, blind/TASK-notes.md), never the product's
  rules, code or sets, and frozen before any rule was changed (blind/README.md). Each file is
  one author. The ``tune`` authors' rows are the only ones the pair judge's weights and the
  quality scan's lists were fitted or adjusted on; the ``held`` authors' rows were never used
  for tuning and are reported apart.

Labels are normalised to four decisions a person makes about a pair: ``contradiction`` (the
newer replaces the older), ``duplicate`` (one fact), ``compatible`` (both true) and
``unrelated``; and, for single notes, ``fine`` against the kinds of low quality.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SETS = Path(__file__).resolve().parent / "sets"


@dataclass(frozen=True)
class LabelledSet:
    name: str  # the author, or "dev"
    file: str
    split: str  # dev | tune | held


PAIR_SETS = (
    LabelledSet("dev", "pairs.jsonl", "dev"),
    LabelledSet("w1", "blind/w1-pairs.jsonl", "tune"),
    LabelledSet("w2", "blind/w2-pairs.jsonl", "tune"),
    LabelledSet("w3", "blind/w3-pairs.jsonl", "held"),
)
NOTE_SETS = (
    LabelledSet("dev", "notes.jsonl", "dev"),
    LabelledSet("n1", "blind/n1-notes.jsonl", "tune"),
    LabelledSet("n2", "blind/n2-notes.jsonl", "held"),
)
PLANTED = "blind/w3-planted.jsonl"
SPLITS = ("dev", "tune", "held")

_PAIR_LABELS = {"paraphrase": "duplicate", "related": "compatible", "different": "unrelated"}
LOW_LABELS = ("vague", "filler", "gibberish", "expired", "fragment")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _rows(chosen: tuple[LabelledSet, ...], splits: tuple[str, ...]) -> list[dict]:
    rows: list[dict] = []
    for labelled in chosen:
        if labelled.split not in splits or not (SETS / labelled.file).exists():
            continue
        for row in read_jsonl(SETS / labelled.file):
            rows.append({**row, "set": labelled.name, "split": labelled.split})
    return rows


def pairs(splits: tuple[str, ...] = SPLITS) -> list[dict]:
    """Every labelled pair of the chosen splits, label normalised, with its set and split."""
    out = []
    for row in _rows(PAIR_SETS, splits):
        label = _PAIR_LABELS.get(row["label"], row["label"])
        out.append({**row, "label": label, "topic": row.get("topic") or row.get("kind", "")})
    return out


def notes(splits: tuple[str, ...] = SPLITS) -> list[dict]:
    return _rows(NOTE_SETS, splits)


def planted() -> list[dict]:
    path = SETS / PLANTED
    return read_jsonl(path) if path.exists() else []
