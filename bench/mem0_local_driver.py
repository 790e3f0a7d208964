"""Runs inside mem0ai's own venv (testsupport/mem0_client.py), started by bench/mem0_local.py.

mem0ai's own local ``Memory`` in this process (its default Qdrant store on disk; its OpenAI
embedder pointed at the benchmark's embedding endpoint, which answers with the vectors amem's
store holds; its LLM at the fake provider, never called with ``infer=False``), driven one
command at a time: the first line on stdin is the configuration, then one JSON command a line
(``add``: texts, one memory each; ``search``: queries, each timed). Each answer is one stdout
line starting with ``ANSWER `` (mem0 may print other lines).
"""

from __future__ import annotations

import json
import sys
import time

from mem0 import Memory  # type: ignore[import-not-found]  # mem0ai lives in its own venv

config = json.loads(sys.stdin.readline())
local = Memory.from_config(
    {
        "vector_store": {
            "provider": "qdrant",
            "config": {"collection_name": "bench", "path": config["workdir"] + "/qdrant", "embedding_model_dims": 384},
        },
        "embedder": {
            "provider": "openai",
            "config": {"model": "all-MiniLM-L6-v2", "api_key": "bench", "openai_base_url": config["embed_url"]},
        },
        "llm": {
            "provider": "openai",
            "config": {"model": "fake", "api_key": "bench", "openai_base_url": config["llm_url"]},
        },
        "history_db_path": config["workdir"] + "/history.db",
    }
)


def answer(value: dict) -> None:
    print("ANSWER " + json.dumps(value), flush=True)


answer({"ready": True})
for line in sys.stdin:
    command = json.loads(line)
    if command["op"] == "add":
        for text in command["texts"]:
            local.add(text, user_id=command["user"], infer=False)
        answer({"added": len(command["texts"])})
    elif command["op"] == "search":
        ms, found = [], []
        for query in command["queries"]:
            start = time.perf_counter()
            # threshold 0: mem0's default (0.1) drops low-scoring matches; amem applies none by default.
            got = local.search(query, filters={"user_id": command["user"]}, top_k=command["top_k"], threshold=0.0)
            ms.append((time.perf_counter() - start) * 1000)
            found.append([m["memory"] for m in got["results"]])
        answer({"ms": ms, "found": found})
local.vector_store.client.close()  # before the interpreter shuts down, or qdrant-client's __del__ complains
