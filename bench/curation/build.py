"""Build the curation evaluation's labelled sets (bench/curation/sets/*.jsonl) from public data and
the hand-written rows in bench/curation/handwritten.py. Deterministic: same inputs, same files.

    .venv/bin/python -m bench.curation.build --locomo PATH/locomo10.json --madial PATH/madial

Public sources (copied in part into the sets, with each row's origin in ``source``):

* LoCoMo (snap-research/LoCoMo, data/locomo10.json, CC BY-NC 4.0): session observations and
  dialogue turns. Used for paraphrases (an observation and the turn it cites), different facts
  and compatible pairs (two observations of one speaker in one session: the same conversation,
  so they hold together), near-copies (an observation and a lightly edited copy), fine notes,
  fragments (an observation cut off mid-sentence), and the 2,000 observations of the scale row.
* MADial-Bench (hejunqing/MADial-Bench, Chinese memory events, MIT): different facts (two events
  of one user and scene), near-copies (an event without its emotion clause) and fine notes.

The sets are for offline evaluation only; LoCoMo's licence is non-commercial.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from itertools import combinations, pairwise
from pathlib import Path

from bench.curation import handwritten as hw
from bench.curation.sets import write_jsonl
from bench.data import data_dir, parse_session_date

SETS = Path(__file__).resolve().parent / "sets"
HELD_SHARE = 3  # of 10: the share of families held out from tuning
_WORD = re.compile(r"[a-z']+")
# The builder's own word list, not the product's (engine/index/tokenize.py STOP_WORDS): the committed
# sets in sets/ were drawn with it, and a shared list would redraw them whenever the product's changed.
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "her",
        "his",
        "their",
        "its",
        "she",
        "he",
        "they",
        "it",
        "i",
        "we",
        "you",
        "that",
        "this",
        "as",
        "by",
        "from",
        "about",
        "after",
        "before",
        "also",
        "so",
        "very",
    ]
)
_NEGATED = re.compile(r"\b(?:not|never|no longer|anymore|still|now|stopped|quit)\b|n't\b", re.I)
_EDITS = [
    (" recently", ""),
    (" really", ""),
    ("children", "kids"),
    ("is planning to", "plans to"),
    ("enjoys", "likes"),
    ("is excited", "is very excited"),
    ("a lot", "a great deal"),
]
_CUT_AT = frozenset(["the", "a", "an", "and", "to", "of", "with", "for", "that", "about", "in", "on", "at"])


def split_of(family: str) -> str:
    """``held`` for about 3 families in 10 (by a stable hash), else ``tune``."""
    return "held" if int(hashlib.sha256(family.encode()).hexdigest(), 16) % 10 < HELD_SHARE else "tune"


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def bigrams(text: str) -> set[str]:
    chars = [c for c in text if "\u4e00" <= c <= "\u9fff"]
    return {a + b for a, b in pairwise(chars)}


def observations(locomo: list[dict]) -> list[dict]:
    """Every observation in conversation and session order: text, speaker, dia_id, date."""
    out = []
    for sample in locomo:
        conv = sample["conversation"]
        for key in sorted(sample["observation"], key=lambda k: int(k.split("_")[1])):
            number = int(key.split("_")[1])
            when = parse_session_date(conv[f"session_{number}_date_time"]).isoformat()
            for speaker, items in sample["observation"][key].items():
                for text, dia in items:
                    dia_id = dia if isinstance(dia, str) else ",".join(dia)
                    out.append(
                        {
                            "conv": sample["sample_id"],
                            "session": number,
                            "speaker": speaker,
                            "text": text.strip(),
                            "dia_id": dia_id,
                            "at": when,
                        }
                    )
    return out


def turns_by_id(locomo: list[dict]) -> dict[tuple[str, str], dict]:
    found = {}
    for sample in locomo:
        conv = sample["conversation"]
        for key, value in conv.items():
            if key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    found[(sample["sample_id"], turn["dia_id"])] = turn
    return found


def pair(rows: list[dict], label: str, kind: str, lang: str, a: str, b: str, source: str, family: str) -> None:
    rows.append(
        {
            "id": f"p{len(rows):04d}",
            "label": label,
            "kind": kind,
            "lang": lang,
            "a": a,
            "b": b,
            "source": source,
            "family": family,
            "split": split_of(family),
        }
    )


def locomo_pairs(rows: list[dict], obs: list[dict], turns: dict, rng: random.Random) -> None:
    # Paraphrases: a short turn and the observation that cites it.
    cited = [o for o in obs if "," not in o["dia_id"] and (o["conv"], o["dia_id"]) in turns]
    short = [o for o in cited if len(turns[(o["conv"], o["dia_id"])]["text"].split()) <= 22]
    for o in rng.sample(short, 40):
        turn = turns[(o["conv"], o["dia_id"])]
        src = f"locomo {o['conv']} {o['dia_id']} (turn) + observation"
        pair(rows, "paraphrase", "turn_vs_observation", "en", f"{turn['speaker']}: {turn['text']}", o["text"], src, src)
    # Two observations of one speaker in one session: different facts, or compatible when one
    # carries a negation or a state word (the rule that raised most false alarms).
    groups: dict[tuple, list[dict]] = {}
    for o in obs:
        groups.setdefault((o["conv"], o["session"], o["speaker"]), []).append(o)
    different: list[tuple] = []
    compatible: list[tuple] = []
    for members in groups.values():
        for x, y in combinations(members, 2):
            if x["dia_id"] == y["dia_id"]:
                continue
            score = jaccard(words(x["text"]), words(y["text"]))
            bucket = compatible if (_NEGATED.search(x["text"]) or _NEGATED.search(y["text"])) else different
            bucket.append((score, x, y))
    # Same session, no negation: often the same fact reworded, sometimes two facts ("related":
    # no conflict may open; a merge is neither required nor forbidden).
    for bucket, label, kind, n in (
        (different, "related", "same_session", 60),
        (compatible, "compatible", "negation", 50),
    ):
        bucket.sort(key=lambda t: -t[0])
        seen: set[str] = set()
        taken = 0
        for _, x, y in bucket:
            if x["text"] in seen or y["text"] in seen:
                continue
            seen.update((x["text"], y["text"]))
            src = f"locomo {x['conv']} {x['dia_id']} + {y['dia_id']} (observations)"
            pair(rows, label, kind, "en", x["text"], y["text"], src, src)
            taken += 1
            if taken == n:
                break
    # Near-copies: an observation and the same with one small edit.
    edited = 0
    for o in rng.sample(obs, len(obs)):
        for old, new in _EDITS:
            if old in o["text"]:
                copy = o["text"].replace(old, new, 1)
                src = f"locomo {o['conv']} {o['dia_id']} (observation, edited copy)"
                pair(rows, "duplicate", "near_copy", "en", o["text"], copy, src, src)
                edited += 1
                break
        if edited == 40:
            break


def madial_memories(folder: Path) -> list[dict]:
    lines = (folder / "MADial-Bench-zh-memory.json").read_text(encoding="utf-8").splitlines()
    return [v for line in lines if line.strip() for v in json.loads(line).values()]


def madial_pairs(rows: list[dict], memories: list[dict]) -> None:
    groups: dict[tuple, list[dict]] = {}
    for m in memories:
        groups.setdefault((m["user-id"], m["scene"]), []).append(m)
    scored = []
    for members in groups.values():
        for x, y in combinations(members, 2):
            scored.append((jaccard(bigrams(x["event"]), bigrams(y["event"])), x, y))
    scored.sort(key=lambda t: -t[0])
    seen: set[str] = set()
    taken = 0
    for score, x, y in scored:
        # Above 0.6 the two events are often one event told twice (a few memories are repeated word for word).
        if x["id"] in seen or y["id"] in seen or score > 0.6:
            continue
        seen.update((x["id"], y["id"]))
        src = f"madial zh memories {x['id']} + {y['id']}"
        pair(rows, "different", "same_scene", "zh", x["event"], y["event"], src, src)
        taken += 1
        if taken == 40:
            break
    clause = re.compile(r"[，,][^，,。]*(?:感到|觉得|感觉)[^，,。]*。$")
    taken = 0
    for m in memories:
        short = clause.sub("。", m["event"])
        if short != m["event"] and len(short) >= 10:
            src = f"madial zh memory {m['id']} (without its feeling clause)"
            pair(rows, "duplicate", "near_copy", "zh", m["event"], short, src, src)
            taken += 1
            if taken == 20:
                break


def hand_pairs(rows: list[dict]) -> None:
    for i, (family, label, kind, lang, a, b) in enumerate(hw.PAIR_TEMPLATES):
        count = 5 if label == "contradiction" else 4
        for slots in hw.slot_sets(count, seed=1000 + i):
            pair(rows, label, kind, lang, hw.fill(a, slots), hw.fill(b, slots), f"hand template {family}", family)
    for j, (label, kind, lang, a, b) in enumerate(hw.FREE_PAIRS):
        pair(rows, label, kind, lang, a, b, "hand", f"hand{j}")


def note(rows: list[dict], label: str, lang: str, text: str, source: str, family: str) -> None:
    rows.append(
        {
            "id": f"n{len(rows):04d}",
            "label": label,
            "lang": lang,
            "text": text,
            "source": source,
            "family": family,
            "split": split_of(family),
        }
    )


def keyboard_mash(rng: random.Random) -> str:
    rows_ = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
    pieces = []
    for _ in range(rng.randint(3, 5)):
        row = rng.choice(rows_)
        start = rng.randrange(len(row) - 3)
        pieces.append(
            "".join(rng.choice(row[start : start + 4] + "eaio"[: rng.randint(0, 1)]) for _ in range(rng.randint(3, 7)))
        )
    return " ".join(pieces)


def build_notes(obs: list[dict], memories: list[dict], rng: random.Random) -> list[dict]:
    rows: list[dict] = []
    for j, (label, lang, text) in enumerate(hw.FREE_NOTES):
        note(rows, label, lang, text, "hand", f"hand{j}")
    for j in range(30):
        note(rows, "gibberish", "en", keyboard_mash(rng), "generated keyboard mash (seeded)", f"mash{j}")
    for o in rng.sample(obs, 150):
        src = f"locomo {o['conv']} {o['dia_id']} (observation)"
        note(rows, "fine", "en", o["text"], src, src)
    for m in rng.sample(memories, 60):
        src = f"madial zh memory {m['id']}"
        note(rows, "fine", "zh", m["event"], src, src)
    cut = 0
    for o in rng.sample(obs, len(obs)):
        tokens = o["text"].rstrip(".").split()
        spots = [i for i in range(len(tokens) // 2, len(tokens) - 1) if tokens[i].lower() in _CUT_AT]
        if len(tokens) >= 10 and spots:
            src = f"locomo {o['conv']} {o['dia_id']} (observation, cut off)"
            note(rows, "fragment", "en", " ".join(tokens[: spots[0] + 1]), src, src)
            cut += 1
            if cut == 30:
                break
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the curation evaluation's labelled sets.")
    parser.add_argument("--locomo", type=Path, default=data_dir() / "locomo10.json")
    parser.add_argument("--madial", type=Path, default=data_dir() / "madial")
    args = parser.parse_args(argv)
    locomo = json.loads(args.locomo.read_text(encoding="utf-8"))
    obs = observations(locomo)
    memories = madial_memories(args.madial)
    rng = random.Random(20)
    pairs: list[dict] = []
    hand_pairs(pairs)
    locomo_pairs(pairs, obs, turns_by_id(locomo), rng)
    madial_pairs(pairs, memories)
    notes = build_notes(obs, memories, rng)
    SETS.mkdir(exist_ok=True)
    write_jsonl(SETS / "pairs.jsonl", pairs)
    write_jsonl(SETS / "notes.jsonl", notes)
    scale = [{"text": o["text"], "at": o["at"], "source": f"locomo {o['conv']} {o['dia_id']}"} for o in obs[:2000]]
    write_jsonl(SETS / "locomo_observations.jsonl", scale)
    by = lambda rows: {k: sum(1 for r in rows if r["label"] == k) for k in sorted({r["label"] for r in rows})}  # noqa: E731
    print(f"pairs {len(pairs)} {by(pairs)}")
    print(f"notes {len(notes)} {by(notes)}")
    print(f"scale observations {len(scale)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
