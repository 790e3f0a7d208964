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

from mem0_memory import local_memory  # type: ignore[import-not-found]  # a sibling: this runs as a script

config = json.loads(sys.stdin.readline())
local = local_memory(config["workdir"], config["embed_url"], config["llm_url"])


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
