"""Operations at scale, on a store ``bench/search.py --data-dir DIR`` filled: what a running
amem costs and how long an operator's backup, restore and index rebuild take.

usage: .venv/bin/python -m bench ops --data-dir DIR [--queries 100] [--skip-restore]

In a fresh process: opens DIR (SQLite + embedded index), times --queries searches (query
embedding included, the first ten warm up), then reports the process's resident memory (now
and at its peak), the data dir's size on disk, and the wall time of ``amem_backup`` (online
copy with SQLite's backup API), ``amem_restore --yes`` (database copied back, then the index
rebuilt from it: ``amem_reindex --recreate``). The restore replaces DIR's database with the
copy just taken, so the store is the same afterwards.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench import data as bench_data
from bench.search import corpus, load_average, measure, setup_django


def memory_mb() -> tuple[float, float]:
    """Resident memory of this process now and at its peak (VmRSS, VmHWM), in MB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def disk_mb(path: Path) -> float:
    return (
        int(subprocess.run(["du", "-sk", str(path)], check=True, capture_output=True, text=True).stdout.split()[0])
        / 1024
    )


def timed_command(name: str, *args: str) -> tuple[float, str]:
    from django.core.management import call_command

    out = io.StringIO()
    started = time.perf_counter()
    call_command(name, *args, stdout=out)
    return time.perf_counter() - started, out.getvalue().strip().splitlines()[-1] if out.getvalue().strip() else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, help="a store bench/search.py --data-dir filled")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--skip-restore", action="store_true", help="time the backup only")
    parser.add_argument(
        "--locomo", default=str(bench_data.data_dir() / "locomo10.json"), help="LoCoMo JSON (the questions)"
    )
    args = parser.parse_args()
    data_dir = Path(args.data_dir)
    setup_django(str(data_dir))
    from memories.models import Agent, Note

    notes, agents = Note.objects.count(), Agent.objects.count()
    print(f"{notes} notes, {agents} agents in {data_dir}; load average at start: {load_average()}", flush=True)
    _, questions = corpus(Path(args.locomo))
    agent = Agent.objects.order_by("pk").first()
    assert agent is not None, "an empty store: fill it with bench/search.py --data-dir first"
    from engine import runtime

    runtime.embedder().encode_one("load the model")  # the model's share of RSS, before the index opens
    before_index, _ = memory_mb()
    p50, p95, mean = measure(questions[: args.queries + 10], agent.pk, args.limit)
    rss, peak = memory_mb()
    print(
        f"search: p50 {p50:.1f} ms, p95 {p95:.1f} ms, mean {mean:.1f} ms ({args.queries} queries, limit {args.limit})"
    )
    print(
        f"memory: RSS {rss:.0f} MB now ({before_index:.0f} MB before the index opened: Python, Django, the model), "
        f"{peak:.0f} MB at peak; disk: {disk_mb(data_dir):.0f} MB in {data_dir}"
    )
    with tempfile.TemporaryDirectory(prefix="amem-ops-", dir=data_dir.parent) as scratch:
        target = Path(scratch) / "backup"
        took, said = timed_command("amem_backup", str(target))
        print(f"amem_backup: {took:.1f} s, {disk_mb(target):.0f} MB ({said})", flush=True)
        if not args.skip_restore:
            runtime.close_store()
            took, said = timed_command("amem_restore", str(target), "--yes")
            print(f"amem_restore (database, then amem_reindex --recreate): {took:.1f} s ({said})", flush=True)
        shutil.rmtree(target, ignore_errors=True)
    rss, peak = memory_mb()
    print(f"memory after: RSS {rss:.0f} MB, peak {peak:.0f} MB; load average at end: {load_average()}")
    os._exit(0)  # the embedded index's threads need no orderly shutdown in a benchmark


if __name__ == "__main__":
    main()
