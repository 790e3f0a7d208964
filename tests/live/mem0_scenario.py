"""Runs inside mem0ai's own venv (testsupport/mem0_client.py), not under pytest: a mem0 user's code.

Reads ``{"url", "alice", "bob", "gateway"}`` (keys) as JSON on stdin, drives amem's mem0-compatible
API through mem0ai's MemoryClient exactly as an integration would, and prints one JSON object:
each step's answer as the client returned it, or ``{"error": class, "message": …}``.
tests/live/test_mem0_client.py asserts on it.
"""

from __future__ import annotations

import json
import sys
import time

from mem0 import MemoryClient
from mem0.client.types import AddMemoryOptions, GetAllMemoryOptions, SearchMemoryOptions

args = json.load(sys.stdin)
host = args["url"] + "/mem0"
out: dict = {}


def step(name, call):
    try:
        out[name] = call()
    except Exception as exc:  # the test asserts on which error the client raised
        out[name] = {"error": type(exc).__name__, "message": str(exc)}
    return out[name]


def first_id(answer) -> str:
    return answer["results"][0]["id"]


def searched(client, query, **options):
    """The server indexes in the background: a search right after a write may not see it yet."""
    deadline = time.monotonic() + 60
    while True:
        answer = client.search(query, **options)
        if answer["results"] or time.monotonic() > deadline:
            return answer
        time.sleep(0.3)


alice = MemoryClient(api_key=args["alice"], host=host)
out["ping"] = {"org_id": alice.org_id, "project_id": alice.project_id, "user_email": alice.user_email}
step("ping_bad_key", lambda: MemoryClient(api_key="amem_not_a_key", host=host))

coffee = step(
    "add_infer",
    lambda: alice.add(
        "Alex switched to black filter coffee in May.", user_id="alex", run_id="s1", metadata={"topic": "food"}
    ),
)
step(
    "add_as_given",
    lambda: alice.add(
        [
            {"role": "user", "content": "I moved to Lisbon last spring."},
            {"role": "assistant", "content": "Lisbon is lovely in the spring!"},
        ],
        options=AddMemoryOptions(infer=False, metadata={"topic": "home"}),
        user_id="alex",
    ),
)
sam = step(
    "add_sam", lambda: alice.add("Sam is allergic to peanuts and carries an epipen.", user_id="sam", infer=False)
)
coffee_id = first_id(coffee)

step("get", lambda: alice.get(coffee_id))
step("get_all_user", lambda: alice.get_all(filters={"user_id": "alex"}))
step("get_all_and", lambda: alice.get_all(filters={"AND": [{"user_id": "alex"}, {"run_id": "s1"}]}))
step("get_all_or", lambda: alice.get_all(filters={"OR": [{"run_id": "s1"}, {"user_id": "sam"}]}))
step("get_all_metadata", lambda: alice.get_all(filters={"metadata": {"topic": "home"}}))
step("get_all_dates", lambda: alice.get_all(filters={"created_at": {"gte": "2000-01-01", "lte": "2000-12-31"}}))
step("get_all_categories", lambda: alice.get_all(filters={"user_id": "alex"}, categories=["no-such-category"]))
step(
    "get_all_page", lambda: alice.get_all(options=GetAllMemoryOptions(filters={"user_id": "alex"}, page=1, page_size=2))
)
step("get_all_top_level_entity", lambda: alice.get_all(user_id="alex"))
step("search", lambda: searched(alice, "what coffee does alex drink", filters={"user_id": "alex"}, top_k=3))
step(
    "search_options",
    lambda: searched(alice, "peanuts", options=SearchMemoryOptions(filters={"user_id": "sam"}, top_k=1, threshold=0.0)),
)
step("update", lambda: alice.update(coffee_id, text="Alex drinks black filter coffee since May 2024, no milk."))
step("update_metadata", lambda: alice.update(coffee_id, metadata={"checked": True}))
step("history", lambda: alice.history(coffee_id))
step("users", alice.users)
step("unsupported", lambda: alice.add("Alex likes jazz on Sunday mornings.", user_id="alex", custom_instructions="x"))

bob = MemoryClient(api_key=args["bob"], host=host)
step("bob_get", lambda: bob.get(coffee_id))
step("bob_get_all", lambda: bob.get_all(filters={"user_id": "alex"}))
step("bob_search", lambda: bob.search("coffee", filters={"user_id": "alex"}))
step("bob_update", lambda: bob.update(coffee_id, text="Bob rewrites what Alex drinks."))
step("bob_delete", lambda: bob.delete(coffee_id))
step("bob_users", bob.users)
step("bob_as_alice", lambda: bob.get_all(filters={"agent_id": "alice"}))

crew = MemoryClient(api_key=args["gateway"], host=host)
step("gateway_add_unnamed", lambda: crew.add("The novel's heroine keeps a lighthouse in Brittany.", user_id="alex"))
step(
    "gateway_add",
    lambda: crew.add("The novel's heroine keeps a lighthouse in Brittany.", user_id="alex", agent_id="crew-writer"),
)
step("gateway_get_all", lambda: crew.get_all(filters={"AND": [{"agent_id": "crew-writer"}, {"user_id": "alex"}]}))
step("gateway_sees_alice", lambda: crew.get(coffee_id))
step("gateway_users", crew.users)

lisbon_ids = [m["id"] for m in out["get_all_metadata"]["results"]] if "results" in out["get_all_metadata"] else []
step("batch_update", lambda: alice.batch_update([{"memory_id": i, "metadata": {"topic": "moves"}} for i in lisbon_ids]))
step("batch_delete", lambda: alice.batch_delete([{"memory_id": i} for i in lisbon_ids]))
step("delete", lambda: alice.delete(coffee_id))
step("get_deleted", lambda: alice.get(coffee_id))
step("history_deleted", lambda: alice.history(coffee_id))
step("delete_all", lambda: alice.delete_all(user_id="sam"))
step("after_delete_all", lambda: alice.get_all(filters={"user_id": "sam"}))
step("add_kim", lambda: alice.add("Kim keeps bees on the roof of her flat.", user_id="kim", infer=False))
step("delete_all_filters", lambda: alice.delete_all(filters={"user_id": "kim"}))
step("after_delete_all_filters", lambda: alice.get_all(filters={"user_id": "kim"}))
step("delete_all_empty_filters", lambda: alice.delete_all(filters={}))
step("search_version", lambda: alice.search("bees", filters={"user_id": "alex"}, version="v2"))
step("get_all_version", lambda: alice.get_all(filters={"user_id": "alex"}, version="v2"))
step("no_prefix", lambda: MemoryClient(api_key=args["alice"], host=args["url"]))
out["sam_id"] = first_id(sam)
print(json.dumps(out, default=str))
