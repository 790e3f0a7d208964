"""Job ``reflection``: one reflection note per agent per run (engine/layers/reflection.py)."""

from __future__ import annotations

from engine.layers import reflection
from engine.maintenance.runner import Step


def run(step: Step) -> None:
    step.gate.check()  # idle-gated like the nightly jobs (offline it makes no model call)
    note = reflection.reflect(step.agent, actor=step.actor, ask=lambda call: step.llm("reflect", call)[0])
    step.count("reflections" if note is not None else "nothing_new")
