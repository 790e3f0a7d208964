"""``python -m bench.curation``: the curation evaluation (bench/curation/replay.py)."""

from __future__ import annotations

from bench.curation.replay import main

raise SystemExit(main())
