"""A job for the runner's tests, steered by its options (registered as "fake" by the tests)."""

from __future__ import annotations

from engine import runtime
from engine.maintenance.runner import Step

RAN: list[str] = []


def run(step: Step) -> None:
    RAN.append(step.agent.pk)
    if step.options.get("unavailable"):
        step.unavailable("no model")
        return
    for i in range(step.options.get("calls", 0)):
        step.llm("construct", lambda: runtime.llm().construct("a note about tea", agent_id=step.agent.pk))
        if "after_call" in step.options:
            step.options["after_call"](i + 1)
    if step.options.get("fail_for") == step.agent.pk:
        raise RuntimeError("boom")
    step.count("done")
