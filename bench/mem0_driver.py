"""Runs inside mem0ai's own venv (testsupport/mem0_client.py), started by bench/mem0_side.py.

Drives both memories through mem0's own SDK, in the same process, batch by batch in turn:

* amem: mem0ai's ``MemoryClient`` against amem's ``/mem0`` API (a live gunicorn);
* mem0: mem0ai's own local ``Memory`` (its default Qdrant store on disk; its OpenAI embedder
  pointed at bench/mem0_side.py's embedding endpoint, which answers with the MiniLM vectors
  amem's model computes; its LLM at the fake provider, never called with ``infer=False``).

Reads its job as JSON on stdin (``phase``: ``ingest`` or ``query``); prints one JSON line: the
client-side wall time of every call, and for each question the ``dia_id``s of the memories
each side returned, in order.
"""

from __future__ import annotations

import json
import sys
import time

from mem0 import MemoryClient  # type: ignore[import-not-found]  # mem0ai lives in its own venv
from mem0_memory import local_memory  # type: ignore[import-not-found]  # a sibling: this runs as a script

job = json.load(sys.stdin)
amem = MemoryClient(api_key=job["key"], host=job["url"] + "/mem0")
local = local_memory(job["workdir"], job["embed_url"], job["llm_url"])
times: dict[str, dict[str, list[float]]] = {"amem": {}, "mem0": {}}


def timed(side: str, op: str, call, *args, **kwargs):
    start = time.perf_counter()
    answer = call(*args, **kwargs)
    times[side].setdefault(op, []).append((time.perf_counter() - start) * 1000)
    return answer


def batches(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def dia_ids(answer: dict) -> list[str]:
    return [str((m.get("metadata") or {}).get("dia_id", "")) for m in answer["results"]]


out: dict = {"times": times}
if job["phase"] == "ingest":
    for conv in job["conversations"]:
        user = conv["name"]
        for batch in batches(conv["turns"], job["batch"]):
            for t in batch:
                meta = {"dia_id": t["dia_id"]}
                timed("amem", "add", amem.add, t["text"], user_id=user, metadata=meta, infer=False, timestamp=t["ts"])
            for t in batch:
                timed("mem0", "add", local.add, t["text"], user_id=user, metadata={"dia_id": t["dia_id"]}, infer=False)
    # What mem0's search has to work with here: its keyword leg needs a store that supports it.
    out["mem0_keyword_leg"] = (
        local.vector_store.keyword_search(query="coffee", top_k=1, filters={"user_id": "x"}) is not None
    )
else:
    found: dict[str, dict[str, list[list[str]]]] = {"amem": {}, "mem0": {}}
    for conv in job["conversations"]:
        user, top_k = conv["name"], job["top_k"]
        for batch in batches(conv["questions"], job["batch"]):
            for q in batch:
                answer = timed("amem", "search", amem.search, q["text"], filters={"user_id": user}, top_k=top_k)
                found["amem"].setdefault(user, []).append(dia_ids(answer))
            for q in batch:
                # threshold 0: mem0's default (0.1) drops low-scoring matches; amem applies none by default.
                answer = timed(
                    "mem0", "search", local.search, q["text"], filters={"user_id": user}, top_k=top_k, threshold=0.0
                )
                found["mem0"].setdefault(user, []).append(dia_ids(answer))
        for _ in range(job["get_all_repeats"]):
            listed = timed("amem", "get_all", amem.get_all, filters={"user_id": user}, page_size=1000)
            out.setdefault("amem_listed", {})[user] = listed["count"]
            listed = timed("mem0", "get_all", local.get_all, filters={"user_id": user}, top_k=1000)
            out.setdefault("mem0_listed", {})[user] = len(listed["results"])
    out["found"] = found
print(json.dumps(out))
