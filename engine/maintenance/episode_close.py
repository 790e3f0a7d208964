"""Job ``episode_close``: close every conversation session of the agent idle for AMEM_EPISODE_IDLE_MINUTES.

No model call (the summary is extractive, engine/layers/episodes.py). Sessions
still active when the step runs keep the agent due ("partial"), so the next run
looks again even if the agent writes nothing more.
"""

from __future__ import annotations

from engine.layers import episodes
from engine.maintenance.runner import PARTIAL, Step


def run(step: Step) -> None:
    idle, active = episodes.idle_sessions(step.agent, step.cfg.episode_idle_minutes)
    step.grow(len(idle))
    for session in idle:
        step.gate.check()
        episodes.close(step.agent, session, closed_by="idle", actor=step.actor)
        step.count("episodes_closed")
        step.advance()
    if active:
        step.count("sessions_active", active)
        step.outcome, step.detail = PARTIAL, f"{active} session(s) still active; looked at again next run"
