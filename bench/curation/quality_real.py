"""The quality scan on real notes labelled blind (bench/curation/sets/real/q*-notes.jsonl), without a database.

    .venv/bin/python -m bench.curation.quality_real

Each labelled note is read as the scan reads a note (engine/maintenance/quality.py ``reasons_for``),
written on its date and scanned on the labellers' review day (2026-12-03), with the default
settings (the quality model on; ``AMEM_QUALITY_MODEL=false`` for the rules alone). A note is
*flagged* when any reason holds; ``too_short`` is what the write gate would
refuse. Per file (one author, one source; the README's split): recall of every label but ``fine``,
the share of ``fine`` notes flagged, fine notes the gate would refuse, and recall per label.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.curation import sets

REVIEW_DAY = dt.datetime(2026, 12, 3, 9, 0, tzinfo=dt.UTC)
SPLIT = {
    **dict.fromkeys(("q1", "q2", "q8", "q9", "q10", "q11", "q12", "q13"), "fit"),
    **dict.fromkeys(("q3", "q4", "q5", "q6", "q7"), "held"),
}


def main() -> int:
    from bench.curation.replay import setup

    setup("offline", "")
    from engine import config
    from engine.judgments.note_quality import little_to_keep
    from engine.maintenance.quality import TOO_SHORT, reasons_for

    cfg = config.get_config()
    expired_before = REVIEW_DAY - dt.timedelta(days=cfg.ephemeral_days)
    print(
        f"{'file':4} {'split':5} {'lang':4} {'notes':>5} | {'low':>4} {'recall':>6} | {'fine':>4} {'flagged':>7} {'refused':>7} | recall by label"
    )
    held: list[tuple[int, int, int, int]] = []
    for author, split in SPLIT.items():
        rows = sets.read_jsonl(sets.SETS / "real" / f"{author}-notes.jsonl")
        verdicts = little_to_keep([r["text"] for r in rows]) if cfg.quality_model else [False] * len(rows)
        caught: Counter = Counter()
        total: Counter = Counter()
        refused = 0
        for row, learned in zip(rows, verdicts, strict=True):
            at = dt.datetime.fromisoformat(row["at"]).replace(hour=12, tzinfo=dt.UTC)
            note = SimpleNamespace(content=row["text"], ephemeral=False, created_at=at)
            reasons = reasons_for(
                note,  # type: ignore[arg-type]
                min_chars=cfg.quality_min_chars,
                expired_before=expired_before,
                now=REVIEW_DAY,
                in_open_conflict=False,
                learned=learned,
            )
            total[row["label"]] += 1
            caught[row["label"]] += bool(reasons)
            refused += row["label"] == "fine" and TOO_SHORT in reasons
        low = sum(n for label, n in total.items() if label != "fine")
        low_caught = sum(n for label, n in caught.items() if label != "fine")
        if split == "held":
            held.append((low, low_caught, total["fine"], caught["fine"]))
        by_label = ", ".join(f"{label} {caught[label]}/{n}" for label, n in sorted(total.items()) if label != "fine")
        print(
            f"{author:4} {split:5} {rows[0]['lang']:4} {len(rows):5} | {low:4} {low_caught / max(low, 1):6.3f} | "
            f"{total['fine']:4} {caught['fine'] / max(total['fine'], 1):7.3f} {refused:7} | {by_label}"
        )
    held_low, held_caught, held_fine, held_fine_flagged = (
        (sum(c) for c in zip(*held, strict=True)) if held else (0,) * 4
    )
    print(
        f"held, all: low recall {held_caught / max(held_low, 1):.3f}, fine flagged {held_fine_flagged / max(held_fine, 1):.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
