"""mem0ai's own local ``Memory`` as the side-by-side benchmarks configure it; imported by the
drivers that run in mem0ai's venv (bench/mem0_driver.py, bench/mem0_local_driver.py) as a sibling
module, since they run as scripts there, outside this package.

Its default Qdrant store on disk (qdrant-client's local mode), its OpenAI embedder pointed at the
benchmark's embedding endpoint (MiniLM vectors, bench/mem0_side.py: EmbeddingEndpoint), its LLM at
the fake provider (never called with ``infer=False``).
"""

from __future__ import annotations


def local_memory(workdir: str, embed_url: str, llm_url: str):
    from mem0 import Memory  # type: ignore[import-not-found]  # mem0ai lives in its own venv

    return Memory.from_config(
        {
            "vector_store": {
                "provider": "qdrant",
                "config": {"collection_name": "bench", "path": workdir + "/qdrant", "embedding_model_dims": 384},
            },
            "embedder": {
                "provider": "openai",
                "config": {"model": "all-MiniLM-L6-v2", "api_key": "bench", "openai_base_url": embed_url},
            },
            "llm": {
                "provider": "openai",
                "config": {"model": "fake", "api_key": "bench", "openai_base_url": llm_url},
            },
            "history_db_path": workdir + "/history.db",
        }
    )
