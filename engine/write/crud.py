"""The CRUD decision gate (docs/architecture.md §3, research §7): a dialogue turn → at most three memory ops.

The existing memories shown to the model come from an internal search (no heat).
Per op:

* NEW → ``add_memory`` (the full pipeline, dedup included).
* UPDATE → the update guard: cosine(new fact, target text), both embedded raw,
  must be ≥ ``crud_update_min_sim`` (0.35; 0 disables). Passing replaces the
  target's text (old text kept in history); failing stores the fact as a new
  memory, so it is never lost.
* DELETE → retire the target (soft).

A bad op (too short, not writable, index out of range, any engine error) is
skipped and reported; the turn's other ops still apply. The seed aborted the
rest of the turn on the first throw (research §17.13).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine import runtime
from engine.config import get_config
from engine.errors import AmemError, InvalidInput
from engine.index.store import cosine
from engine.llm.types import CrudOp
from engine.reading import chatter
from engine.retrieval.search import search
from engine.text import check_content, check_storable, weighted_length
from engine.write import edit, told_dates
from engine.write.pipeline import add_memory, clean_labels, resolve_agent
from memories import access
from memories.models import Agent, Note

APPLIED, STORED_AS_NEW, SKIPPED = "applied", "stored_as_new", "skipped"
MAX_OPS = 3
CONTEXT_LIMIT = 5
USER_ROLES = ("user", "human")


@dataclass(frozen=True)
class OpOutcome:
    action: str  # NEW | UPDATE | DELETE
    fact: str
    status: str  # applied | stored_as_new | skipped
    note_id: str | None = None
    reason: str = ""
    write_outcome: str = ""  # for NEW / stored_as_new: created | duplicate | folded | flagged


@dataclass(frozen=True)
class CrudResult:
    ops: tuple[OpOutcome, ...] = ()
    considered: tuple[str, ...] = ()  # ids of the existing memories the model was shown


def update_guard(new: np.ndarray | None, target: np.ndarray | None, threshold: float) -> bool:
    """Whether a replacement is close enough to its target to be an update (B033–B038, B043)."""
    if threshold <= 0:
        return True
    if new is None or target is None or new.size == 0 or target.size == 0 or new.shape != target.shape:
        return False
    return cosine(new, target) >= threshold


def _turns(dialogue: object) -> list[tuple[str, str]]:
    """(role, text) pairs from tuples or {"role", "content"} mappings."""
    if isinstance(dialogue, (str, bytes)) or not isinstance(dialogue, Sequence):
        raise InvalidInput("dialogue must be a list of (role, text) turns")
    turns: list[tuple[str, str]] = []
    for turn in dialogue:
        if isinstance(turn, Mapping):
            role, text = turn.get("role"), turn.get("content", turn.get("text"))
        elif isinstance(turn, Sequence) and not isinstance(turn, str) and len(turn) == 2:
            role, text = turn
        else:
            raise InvalidInput("each dialogue turn must be (role, text) or {role, content}")
        if not isinstance(role, str) or not isinstance(text, str):
            raise InvalidInput("dialogue roles and texts must be strings")
        check_storable(role, "role")
        check_storable(text, "content")
        turns.append((role.strip().lower(), text))
    return turns


def decide_and_apply(
    dialogue: object,
    agent: Agent | str,
    *,
    sources: Sequence[str] = (),
    actor: str | None = None,
    occurred_at: dt.datetime | None = None,
) -> CrudResult:
    """Ask for ops on the latest exchange and apply them one by one.

    ``occurred_at``: when the exchange was said (a capture replayed later is not said now). A fact
    naming a relative date gets the date it means beside it (engine/write/told_dates.py), and an
    added fact is dated then."""
    agent = resolve_agent(agent)
    turns = _turns(dialogue)
    labels = clean_labels(sources, "sources", limit=1000)
    user_text = next((text for role, text in reversed(turns) if role in USER_ROLES), "").strip()
    if weighted_length(user_text) < get_config().quality_min_chars or chatter.filler(user_text):
        return CrudResult()  # greetings, thanks and one-word replies carry nothing to remember
    existing = [r.note for r in search(user_text, agent, limit=CONTEXT_LIMIT, heat=False, links=False)]
    ops = runtime.llm().crud(turns, [n.content for n in existing], agent_id=agent.pk)
    said = occurred_at or dt.datetime.now(dt.UTC)
    ops = [replace(op, fact=told_dates.anchor(op.fact, said)) if op.action != "DELETE" else op for op in ops]
    outcomes = apply_ops(ops, existing, agent, sources=labels, actor=actor, occurred_at=occurred_at)
    return CrudResult(outcomes, tuple(str(n.pk) for n in existing))


def apply_ops(
    ops: Sequence[CrudOp],
    existing: Sequence[Note],
    agent: Agent,
    *,
    sources: Sequence[str] = (),
    actor: str | None = None,
    occurred_at: dt.datetime | None = None,
) -> tuple[OpOutcome, ...]:
    """Apply up to three ops against the memories the model was shown; each op stands alone."""
    outcomes: list[OpOutcome] = []
    for op in list(ops)[:MAX_OPS]:
        try:
            outcomes.append(_apply(op, existing, agent, sources, actor, occurred_at))
        except AmemError as exc:
            outcomes.append(OpOutcome(op.action, op.fact, SKIPPED, reason=str(exc)))
    return tuple(outcomes)


def _apply(
    op: CrudOp,
    existing: Sequence[Note],
    agent: Agent,
    sources: Sequence[str],
    actor: str | None,
    occurred_at: dt.datetime | None = None,
) -> OpOutcome:
    cfg = get_config()
    if op.action == "NEW":
        result = add_memory(op.fact, agent, sources=sources, actor=actor, occurred_at=occurred_at)
        return OpOutcome(op.action, op.fact, APPLIED, str(result.note.pk), write_outcome=result.outcome)
    if op.action not in ("UPDATE", "DELETE"):
        return OpOutcome(op.action, op.fact, SKIPPED, reason=f"unknown action {op.action!r}")
    if op.existing_idx is None or not 0 <= op.existing_idx < len(existing):
        return OpOutcome(op.action, op.fact, SKIPPED, reason=f"existing_idx {op.existing_idx} is out of range")
    target = access.get_note_for_write(agent, existing[op.existing_idx].pk)
    if op.action == "DELETE":
        edit.retire_memory(target.pk, agent, actor=actor, reason="crud")
        return OpOutcome(op.action, op.fact, APPLIED, str(target.pk))
    fact = check_content(op.fact, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars).text
    new_vec, target_vec = runtime.embedder().encode([fact, target.content])
    if not update_guard(new_vec, target_vec, cfg.crud_update_min_sim):
        result = add_memory(fact, agent, sources=sources, actor=actor, occurred_at=occurred_at)
        reason = f"update guard: cosine below {cfg.crud_update_min_sim}"
        return OpOutcome(op.action, fact, STORED_AS_NEW, str(result.note.pk), reason, result.outcome)
    edit.update_memory(target.pk, fact, agent, sources=sources, actor=actor)
    return OpOutcome(op.action, fact, APPLIED, str(target.pk))
