"""Readers for the retrieval benchmarks' public data (LoCoMo, MADial-Bench).

Pure parsing: no Django, no engine. What counts as a memory, a query and its
gold ids follows the datasets' own protocols (the official dialog-RAG turn text
for LoCoMo, the authors' protocol for MADial). The data are not in the repository: the
benchmarks read them from ``--data`` / ``--locomo`` or from $AMEM_BENCH_DATA (a folder
holding ``locomo10.json`` and ``madial/``).
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path


def data_dir() -> Path:
    """The folder of the public benchmark data: $AMEM_BENCH_DATA (the current folder if unset)."""
    return Path(os.environ.get("AMEM_BENCH_DATA", ".")).expanduser()


_DIA_ID = re.compile(r"^D(\d+):(\d+)$")
_SESSION = re.compile(r"^session_(\d+)$")
_DATE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})\s*$", re.IGNORECASE)
_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    occurred_at: dt.datetime
    date_label: str


@dataclass(frozen=True)
class Question:
    text: str
    gold: frozenset[str]
    category: str
    answer: str = ""  # LoCoMo's reference answer ("" for MADial)


@dataclass
class Conversation:
    """One isolated memory store's worth of data: its memories and the questions asked of it."""

    name: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def parse_session_date(raw: str) -> dt.datetime:
    """'1:56 pm on 8 May, 2023' → an aware UTC datetime."""
    m = _DATE.match(raw)
    if not m:
        raise ValueError(f"unrecognised LoCoMo date {raw!r}")
    hour, minute, half, day, month, year = m.groups()
    hour = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return dt.datetime(int(year), _MONTHS[month.lower()], int(day), hour, int(minute), tzinfo=dt.UTC)


def normalize_evidence(raw: list[str]) -> list[str]:
    """Repair the file's malformed evidence ('D8:6; D9:17', 'D:11:26', 'D30:05', 'D')."""
    clean: list[str] = []
    for item in raw:
        for piece in re.split(r"[;,\s]+", str(item).strip()):
            m = _DIA_ID.match(piece.replace("D:", "D"))
            if m:
                clean.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return clean


def turn_text(turn: dict) -> str:
    """The official dialog-RAG text of a turn: '<speaker> said, "<text>"' and the image caption."""
    text = f'{turn["speaker"]} said, "{turn["text"]}"'
    if turn.get("blip_caption"):
        text += f" and shared {turn['blip_caption']}"
    return text


def read_data(path: Path) -> str:
    """A benchmark data file's text, or one line saying where the data is looked for."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SystemExit(
            f"bench: {path} not found; set AMEM_BENCH_DATA to the folder holding locomo10.json and madial/ "
            "(or pass the file's path)"
        ) from None


def load_locomo(path: Path, categories: tuple[int, ...] = (1, 2, 3, 4)) -> list[Conversation]:
    conversations: list[Conversation] = []
    for sample in json.loads(read_data(path)):
        conv = sample["conversation"]
        item = Conversation(sample["sample_id"])
        sessions = sorted((int(m.group(1)), k) for k in conv if (m := _SESSION.match(k)))
        for number, key in sessions:
            label = conv[f"{key}_date_time"]
            when = parse_session_date(label)
            for turn in conv[key]:
                item.turns.append(Turn(turn["dia_id"], number, turn["speaker"], turn_text(turn), when, label))
        for qa in sample["qa"]:
            gold = normalize_evidence(qa.get("evidence", []))
            # Questions without evidence cannot be scored for recall (the README's recipe skips them).
            if qa["category"] in categories and gold:
                answer = str(qa.get("answer", ""))
                item.questions.append(Question(qa["question"], frozenset(gold), str(qa["category"]), answer))
        conversations.append(item)
    return conversations


_REALTALK_DATE = "%d.%m.%Y, %H:%M:%S"


def realtalk_evidence(raw: list[str]) -> list[str]:
    """REALTALK's evidence ids, repaired ('D5:3.', 'D1:11; D3:18', 'D12:3-D12:5', 'D 2:18')."""
    ids: list[str] = []
    for item in raw:
        for raw_piece in re.split(r"[;,]", str(item)):
            piece = raw_piece.replace(" ", "").rstrip(".")
            span = re.fullmatch(r"D(\d+):(\d+)-D?(\d+)?:?(\d+)", piece)
            if span:
                day, first, _day2, last = span.groups()
                ids += [f"D{int(day)}:{i}" for i in range(int(first), int(last) + 1)]
            elif _DIA_ID.match(piece):
                ids.append(piece)
    return ids


def load_realtalk(folder: Path) -> list[Conversation]:
    """REALTALK (danny911kr/REALTALK, ``data/Chat_*.json``): 10 two-person chats over 21 days, LoCoMo's
    format. A turn's id is "S<session>:<dia_id>" (its ``dia_id`` counts days, not sessions, and a
    day can span sessions), so a gold id names its session like LoCoMo's "D<session>:<turn>".
    Questions whose evidence names no kept turn are left out."""
    conversations: list[Conversation] = []
    files = sorted(Path(folder).glob("Chat_*.json"), key=lambda p: int(p.name.split("_")[1]))
    if not files:
        raise SystemExit(f"bench: no REALTALK Chat_*.json files in {folder}")
    for path in files:
        sample = json.loads(path.read_text(encoding="utf-8"))
        item = Conversation(path.stem)
        ids: dict[str, str] = {}
        sessions = sorted(int(m.group(1)) for k in sample if (m := _SESSION.match(k)))
        for number in sessions:
            label = sample[f"session_{number}_date_time"]
            for turn in sample[f"session_{number}"]:
                when = dt.datetime.strptime(turn["date_time"], _REALTALK_DATE).replace(tzinfo=dt.UTC)
                text = f'{turn["speaker"]} said, "{turn["clean_text"]}"'
                if turn.get("blip_caption"):
                    text += f" and shared {turn['blip_caption']}"
                ids[turn["dia_id"]] = f"S{number}:{turn['dia_id']}"
                item.turns.append(Turn(ids[turn["dia_id"]], number, turn["speaker"], text, when, label))
        for qa in sample["qa"]:
            gold = [ids[i] for i in realtalk_evidence(qa.get("evidence", [])) if i in ids]
            if gold:
                answer = str(qa.get("answer", ""))
                item.questions.append(Question(qa["question"], frozenset(gold), str(qa["category"]), answer))
        conversations.append(item)
    return conversations


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass(frozen=True)
class Memory:
    id: str
    text: str
    occurred_at: dt.datetime


def load_madial(folder: Path, lang: str) -> list[tuple[str, list[Memory], list[Question]]]:
    """Per user of one language: its memories (scene + emotion + event) and its dialogues' queries."""
    folder = Path(folder)
    zh = {k: v for line in _jsonl(folder / "MADial-Bench-zh-memory.json") for k, v in line.items()}
    memories = {k: v for line in _jsonl(folder / f"MADial-Bench-{lang}-memory.json") for k, v in line.items()}
    by_user: dict[int, list[Memory]] = {}
    for mid, m in memories.items():
        user = int(m.get("user-id", zh.get(mid, {}).get("user-id")))
        when = dt.datetime.fromisoformat(m["time"]).replace(tzinfo=dt.UTC)
        text = f"{m.get('scene', '')} {m.get('emotion', '')} {m.get('event', '')}".strip()
        by_user.setdefault(user, []).append(Memory(mid, text, when))
    questions: dict[int, list[Question]] = {u: [] for u in by_user}
    for d in _jsonl(folder / f"MADial-Bench-{lang}-dialogue.json"):
        user = int(d["user-id"])
        pool = {m.id for m in by_user[user]}
        gold = frozenset(str(i) for i in d["relevant-id"]) & pool
        query = "".join(d["dialogue"][1 : d["test-turn"][0]]).strip()
        if gold and query:
            questions[user].append(Question(query, gold, lang))
    return [(f"user{u}", by_user[u], questions[u]) for u in sorted(by_user)]
