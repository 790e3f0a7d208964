"""``python -m bench <benchmark> …``: every benchmark from the project root (never part of the product).

    python -m bench locomo|madial|realtalk …  retrieval recall on LoCoMo / MADial / REALTALK (bench/retrieval.py)
    python -m bench scale …           bulk ingest and filtered index query latency (bench/scale.py)
    python -m bench search …          in-process search latency at scale (bench/search.py)
    python -m bench ops …             memory, disk, backup, restore and rebuild on a bench/search.py store (bench/ops.py)
    python -m bench write …           write-path cost, offline and with a fake provider (bench/write.py)
    python -m bench load …            concurrent clients against gunicorn on PostgreSQL (bench/load.py)
    python -m bench flood …           another agent's searches during a conversation flood (bench/flood.py)
    python -m bench restart …         gunicorn's restart after kill -9 until it answers (bench/restart.py)
    python -m bench local-model …     LoCoMo through /turns with a real local model vs offline (bench/local_model.py)
    python -m bench curation …        the review queues' precision and recall on labelled sets (bench/curation/)
    python -m bench bundle …          gold evidence inside the recall bundle per token budget (bench/bundle.py)
    python -m bench mem0 …            amem and mem0 side by side through mem0's own SDK (bench/mem0_side.py)
    python -m bench mem0-local …      amem's search and mem0's local Memory's, each in its own process (bench/mem0_local.py)
    python -m bench relevance …       the recall floor's labelled questions and its precision/recall (bench/relevance.py)
    python -m bench personal …        recall on stores of short personal notes, asked what users ask (bench/personal.py)

``python -m bench <benchmark> --help`` lists a benchmark's options. docs/benchmarks.md has the figures.
"""

from __future__ import annotations

import os
import sys
from importlib import import_module

# Scripts that set up their own Django (a scratch data dir) or none, run with their own argv.
SCRIPTS = {
    "scale": "bench.scale",
    "search": "bench.search",
    "ops": "bench.ops",
    "write": "bench.write",
    "load": "bench.load",
    "flood": "bench.flood",
    "restart": "bench.restart",
    "local-model": "bench.local_model",
    "curation": "bench.curation.replay",
    "bundle": "bench.bundle",
    "mem0": "bench.mem0_side",
    "mem0-local": "bench.mem0_local",
    "relevance": "bench.relevance",
    "personal": "bench.personal",
}
RETRIEVAL = ("locomo", "madial", "realtalk")


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in (*SCRIPTS, *RETRIEVAL):
        print(__doc__, file=sys.stderr)
        return 2
    name, rest = argv[0], argv[1:]
    if name in SCRIPTS:
        sys.argv = [f"python -m bench {name}", *rest]
        return import_module(SCRIPTS[name]).main() or 0
    # The retrieval benchmark runs in the configured settings (its child process in a fresh data dir).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "amem_site.settings")
    import django

    django.setup()
    from bench.retrieval import BenchError
    from bench.retrieval import main as retrieval

    try:
        retrieval(argv)
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
