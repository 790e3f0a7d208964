"""The small demo memory set that `make run` loads for the `demo` agent."""

from __future__ import annotations

import json
from pathlib import Path

DEMO_FILE = Path(__file__).with_name("memories.jsonl")


def demo_items() -> list[dict]:
    return [json.loads(line) for line in DEMO_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
