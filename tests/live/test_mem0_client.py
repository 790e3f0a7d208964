"""mem0ai's own MemoryClient (pinned, in its own venv) against a live amem with host=".../mem0".

One run of tests/live/mem0_scenario.py drives every call a mem0 integration makes; each test
below checks one of them in the shape the client hands back to its caller, and that one key
never reaches another agent's memories. The first run installs mem0ai from PyPI into
var/test-cache/ (about a minute); later runs reuse it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testsupport import mem0_client

pytestmark = pytest.mark.slow

SCENARIO = Path(__file__).with_name("mem0_scenario.py")
MEMORY_FIELDS = {"id", "memory", "user_id", "agent_id", "run_id", "hash", "metadata", "categories", "created_at"}


@pytest.fixture(scope="module")
def run(server, tmp_path_factory) -> dict:
    bob = server.create_agents(["bob"])[0]
    out = server.manage("amem_gateway", "create", "crew-")
    gateway = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("api key: "))
    args = {"url": server.url, "alice": server.key, "bob": bob, "gateway": gateway}
    return mem0_client.run(SCENARIO, args, tmp_path_factory.mktemp("mem0-home"))


def ok(run: dict, step: str):
    answer = run[step]
    assert not (isinstance(answer, dict) and "error" in answer), f"{step}: {answer}"
    return answer


def refused(run: dict, step: str, error: str) -> str:
    answer = run[step]
    assert isinstance(answer, dict) and answer.get("error") == error, f"{step}: {answer}"
    return answer["message"]


def memories(run: dict, step: str) -> list[str]:
    return sorted(m["memory"] for m in ok(run, step)["results"])


def test_the_client_starts_against_amem_and_a_bad_key_is_refused(run):
    assert run["ping"] == {"org_id": "amem", "project_id": "alice", "user_email": None}
    assert "missing, unknown or revoked" in refused(run, "ping_bad_key", "ValueError")


def test_add_with_and_without_infer(run):
    [added] = ok(run, "add_infer")["results"]
    assert (added["event"], added["memory"]) == ("ADD", "Alex switched to black filter coffee in May.")
    as_given = ok(run, "add_as_given")["results"]
    assert [r["memory"] for r in as_given] == ["I moved to Lisbon last spring.", "Lisbon is lovely in the spring!"]
    assert all(r["event"] == "ADD" for r in as_given)


def test_get_answers_a_memory_in_mem0s_shape(run):
    got = ok(run, "get")
    assert set(got) >= MEMORY_FIELDS
    assert (got["user_id"], got["agent_id"], got["run_id"], got["metadata"]) == (
        "alex",
        "alice",
        "s1",
        {"topic": "food"},
    )


def test_get_all_with_filters(run):
    lisbon = ["I moved to Lisbon last spring.", "Lisbon is lovely in the spring!"]
    coffee = "Alex switched to black filter coffee in May."
    sam = "Sam is allergic to peanuts and carries an epipen."
    assert memories(run, "get_all_user") == sorted([coffee, *lisbon])
    assert memories(run, "get_all_and") == [coffee]
    assert memories(run, "get_all_or") == sorted([coffee, sam])
    assert memories(run, "get_all_metadata") == sorted(lisbon)
    assert memories(run, "get_all_dates") == []
    assert memories(run, "get_all_categories") == []
    page = ok(run, "get_all_page")
    assert (page["count"], len(page["results"]), page["previous"]) == (3, 2, None) and page["next"]
    # mem0's client itself refuses entity ids outside filters, before any request.
    assert "not supported in get_all" in refused(run, "get_all_top_level_entity", "ValueError")


def test_search_finds_the_users_memory_with_a_score(run):
    results = ok(run, "search")["results"]
    assert results and results[0]["memory"] == "Alex switched to black filter coffee in May."
    assert all(r["user_id"] == "alex" for r in results)
    assert isinstance(results[0]["score"], float)
    [peanuts] = ok(run, "search_options")["results"]
    assert peanuts["user_id"] == "sam"


def test_update_and_history(run):
    assert ok(run, "update")["memory"] == "Alex drinks black filter coffee since May 2024, no milk."
    assert ok(run, "update_metadata")["metadata"] == {"checked": True}
    history = ok(run, "history")
    assert [(h["event"], h["old_memory"]) for h in history] == [
        ("ADD", None),
        ("UPDATE", "Alex switched to black filter coffee in May."),
    ]


def test_users_lists_the_agent_its_users_and_runs(run):
    entities = {(e["type"], e["name"]) for e in ok(run, "users")["results"]}
    assert entities == {("agent", "alice"), ("user", "alex"), ("user", "sam"), ("run", "s1")}


def test_an_option_amem_cannot_honour_is_a_validation_error_naming_it(run):
    assert refused(run, "unsupported", "ValidationError").startswith("custom_instructions: not supported by amem")


def test_delete_and_delete_all(run):
    assert ok(run, "delete") == {"message": "Memory deleted successfully!"}
    refused(run, "get_deleted", "MemoryNotFoundError")
    assert ok(run, "delete_all")["message"] == "Memories deleted successfully!"
    assert ok(run, "after_delete_all")["results"] == []


def test_delete_all_takes_the_ids_inside_filters_as_mem0_documents(run):
    assert ok(run, "delete_all_filters")["count"] == 1
    assert ok(run, "after_delete_all_filters")["results"] == []
    # An empty filter names nobody: it never retires everything.
    assert "name whose memories to delete" in refused(run, "delete_all_empty_filters", "ValidationError")


def test_a_deleted_memorys_history_ends_with_its_delete(run):
    events = [e["event"] for e in ok(run, "history_deleted")]
    assert events[0] == "ADD" and events[-1] == "DELETE"


def test_version_is_accepted_on_search_and_get_all(run):
    assert "results" in ok(run, "search_version")
    assert "results" in ok(run, "get_all_version")


def test_a_client_without_the_mem0_prefix_is_told_where_the_calls_live(run):
    answer = run["no_prefix"]
    assert isinstance(answer, dict) and "error" in answer, answer
    assert '/mem0")' in answer["message"], answer


def test_batch_update_and_delete(run):
    assert ok(run, "batch_update") == {"message": "Successfully updated 2 memories"}
    assert ok(run, "batch_delete") == {"message": "Successfully deleted 2 memories"}


def test_another_agents_key_sees_nothing_of_alices(run):
    refused(run, "bob_get", "MemoryNotFoundError")
    assert ok(run, "bob_get_all")["results"] == []
    assert ok(run, "bob_search")["results"] == []
    refused(run, "bob_update", "MemoryNotFoundError")
    refused(run, "bob_delete", "MemoryNotFoundError")
    assert [(e["type"], e["name"]) for e in ok(run, "bob_users")["results"]] == [("agent", "bob")]
    # An agent key naming another agent is refused, as in the native API (mem0 maps 403 this way).
    assert "belongs to agent 'bob'" in refused(run, "bob_as_alice", "AuthenticationError")


def test_a_gateway_key_acts_for_the_agent_it_names_and_only_its_own(run):
    assert "name it in agent_id" in refused(run, "gateway_add_unnamed", "ValidationError")
    assert ok(run, "gateway_add")["results"][0]["event"] == "ADD"
    [written] = ok(run, "gateway_get_all")["results"]
    assert (written["agent_id"], written["user_id"]) == ("crew-writer", "alex")
    refused(run, "gateway_sees_alice", "ValidationError")  # no agent named: refused before any read
    names = {(e["type"], e["name"]) for e in ok(run, "gateway_users")["results"]}
    assert names == {("agent", "crew-writer"), ("user", "alex")}
