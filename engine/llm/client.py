"""The one place that calls a model: one typed method per role, never raising.

Each role renders its prompt (engine/llm/prompts), goes to its tier's provider (with the
role's JSON schema where the provider takes one, engine/llm/schemas.py), and parses the
reply against the role's validator. Every failure (provider error, timeout, unusable
reply) is answered by the offline rules for that step, as if no model were configured
(the role's safe default when there are none), is logged, and is accounted for in an
LlmCallRecord handed to the optional recorder: a refusing or sloppy model never leaves a
note worse than having no model. With provider `none` the injected offline rules answer
every step, and the record says so (outcome `offline`).

No Django here: settings are passed in as plain mappings (see resolve_llm_config).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

from engine.llm import prompts, schemas
from engine.llm.config import LlmConfig, TierConfig, resolve_llm_config
from engine.llm.parse import (
    conflict_validator,
    crud_validator,
    echo_check,
    evolve_validator,
    link_validator,
    parse,
    reflection_validator,
    validate_episode,
    validate_judgement,
    validate_merge,
    validate_note_fields,
)
from engine.llm.providers import ClientPool, Completion, complete
from engine.llm.types import (
    Candidate,
    ConflictFinding,
    CrudOp,
    EpisodeSummary,
    EvolveResult,
    Judgement,
    LlmCallRecord,
    MergeDecision,
    Neighbour,
    NoteFields,
    Reflection,
)

__all__ = [
    "BUDGETS",
    "LLM",
    "Candidate",
    "ConflictFinding",
    "CrudOp",
    "EvolveResult",
    "Judgement",
    "LlmCallRecord",
    "LlmConfig",
    "MergeDecision",
    "Neighbour",
    "NoteFields",
    "OfflineRules",
    "build_llm",
    "resolve_llm_config",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

# Output-token budgets per role. Link is one batched call for all candidates, so it
# needs room for several ids (the seed's per-candidate yes/no used 10).
BUDGETS: dict[str, int] = {
    "construct": 400,
    "link": 200,
    "crud": 400,
    "should_merge": 300,
    "evolution_judge": 300,
    "evolve": 500,
    "conflict_scan": 600,
    "episode": 400,
    "reflect": 400,
}
MAX_TEXT_CHARS = 4000
MAX_TURN_CHARS = 500  # per dialogue turn, as the seed did
MAX_CANDIDATE_CHARS = 500
MAX_EVOLVE_NEIGHBOURS = 3
MAX_EPISODE_TURNS = 60  # the latest ones; a longer session is summarised from its end
MAX_REFLECT_NOTES = 40

Recorder = Callable[[LlmCallRecord], None]

# One shared pool: every LLM built in this process reuses the same SDK clients.
CLIENTS = ClientPool()

_offline_logged: set[str] = set()
_offline_lock = threading.Lock()


class OfflineRules(Protocol):
    """Rule-based stand-ins for every role (engine/llm/offline.py implements this)."""

    conflict_scan_available: bool

    def construct(self, text: str) -> NoteFields: ...

    def judge_links(self, text: str, candidates: list[Candidate]) -> list[str]: ...

    def evolve(self, new_note: str, neighbours: list[Neighbour]) -> EvolveResult: ...

    def crud(self, dialogue: list[tuple[str, str]], existing: list[str]) -> list[CrudOp]: ...

    def should_merge(self, a: str, b: str) -> MergeDecision: ...

    def evolution_judge(self, old: str, new: str) -> Judgement: ...

    def conflict_scan(self, texts: list[str]) -> list[ConflictFinding]: ...


@dataclass(frozen=True)
class _Call(Generic[T]):
    """One role invocation: what to render, how to validate, what to fall back to."""

    role: str
    variables: Mapping[str, object]
    validate: Callable[[Any], T | None]
    default: T
    offline: Callable[[OfflineRules], T]
    schema: schemas.Schema | None = None
    # Completes a usable but partial model answer from the offline rules (construct's gaps).
    mend: Callable[[T, OfflineRules], tuple[T, list[str]]] | None = None


_watching = threading.local()


@contextmanager
def recorded_calls() -> Iterator[list[LlmCallRecord]]:
    """The records of the model calls this thread makes inside the block, as the LLM recorded them.

    The façade never raises and answers a failure with the role's safe default; a caller that
    must tell the two apart (a maintenance job) reads the outcome here.
    """
    records: list[LlmCallRecord] = []
    stack = getattr(_watching, "stack", None)
    if stack is None:
        stack = _watching.stack = []
    stack.append(records)
    try:
        yield records
    finally:
        stack.remove(records)


class LLM:
    """Typed façade over the configured providers; no method ever raises on model trouble."""

    def __init__(
        self,
        config: LlmConfig,
        *,
        recorder: Recorder | None = None,
        offline: OfflineRules | None = None,
        clients: ClientPool | None = None,
    ) -> None:
        self.config = config
        self.recorder = recorder
        self.offline = offline
        self.clients = clients if clients is not None else CLIENTS

    # ------------------------------------------------------------------ status

    def is_offline(self, role: str) -> bool:
        return self.config.tier_for(role).provider == "none"

    @property
    def conflict_scan_available(self) -> bool:
        """False when the sweep would only get the offline stand-in (which finds nothing)."""
        if not self.is_offline("conflict_scan"):
            return True
        return bool(self.offline is not None and self.offline.conflict_scan_available)

    # ------------------------------------------------------------------ roles

    def construct(self, text: str, *, agent_id: str | None = None) -> NoteFields:
        """Keywords, tags, context, category, note type, topics and confidence for a text."""
        return self._run(
            _Call(
                role="construct",
                variables={"text": _clip(text, MAX_TEXT_CHARS)},
                validate=validate_note_fields,
                default=NoteFields(),
                offline=lambda rules: rules.construct(text),
                schema=schemas.construct(),
                mend=lambda fields, rules: _fill_gaps(fields, lambda: rules.construct(text)),
            ),
            agent_id,
        )

    def judge_links(self, text: str, candidates: Sequence[Candidate], *, agent_id: str | None = None) -> list[str]:
        """Ids of the offered candidates worth linking, judged in one batched call."""
        offered = list(candidates)
        if not offered:
            return []
        lines = "\n".join(f"[{c.id}] {_one_line(c.content, MAX_CANDIDATE_CHARS)}" for c in offered)
        return self._run(
            _Call(
                role="link",
                variables={"text": _clip(text, MAX_TEXT_CHARS), "candidates": lines},
                validate=link_validator(offered),
                default=[],
                schema=schemas.link([c.id for c in offered]),
                offline=lambda rules: [i for i in rules.judge_links(text, offered) if i in {c.id for c in offered}],
            ),
            agent_id,
        )

    def evolve(self, new_note: str, neighbours: Sequence[Neighbour], *, agent_id: str | None = None) -> EvolveResult:
        """Context/tag updates for up to three linked neighbours, plus real-id connections."""
        chosen = list(neighbours)[:MAX_EVOLVE_NEIGHBOURS]
        if not chosen:
            return EvolveResult()
        blocks = "\n".join(
            f"[{n.id}] {_one_line(n.content, MAX_CANDIDATE_CHARS)}\n"
            f"    context: {n.context or '-'}\n"
            f"    tags: {', '.join(n.tags) or '-'}"
            for n in chosen
        )
        return self._run(
            _Call(
                role="evolve",
                variables={"note": _clip(new_note, MAX_TEXT_CHARS), "neighbours": blocks},
                validate=evolve_validator(chosen),
                default=EvolveResult(),
                schema=schemas.evolve([n.id for n in chosen]),
                offline=lambda rules: rules.evolve(new_note, chosen),
            ),
            agent_id,
        )

    def crud(
        self,
        dialogue: Sequence[tuple[str, str]],
        existing: Sequence[str],
        *,
        agent_id: str | None = None,
    ) -> list[CrudOp]:
        """At most three NEW/UPDATE/DELETE ops; UPDATE/DELETE always carry an in-range index."""
        turns = [(role, text) for role, text in dialogue if text and text.strip()]
        if not turns:
            return []
        known = list(existing)
        convo = "\n".join(f"{_speaker(role)}: {_one_line(text, MAX_TURN_CHARS)}" for role, text in turns)
        memories = "\n".join(f"[{i}] {_one_line(t, MAX_CANDIDATE_CHARS)}" for i, t in enumerate(known)) or "(none)"
        return self._run(
            _Call(
                role="crud",
                variables={"dialogue": convo, "memories": memories},
                validate=crud_validator(len(known)),
                default=[],
                schema=schemas.crud(),
                offline=lambda rules: rules.crud(turns, known)[:3],
            ),
            agent_id,
        )

    def should_merge(self, a: str, b: str, *, agent_id: str | None = None) -> MergeDecision:
        """Whether two notes state one fact, and the merged text if so."""
        return self._run(
            _Call(
                role="should_merge",
                variables={"a": _clip(a, MAX_TEXT_CHARS), "b": _clip(b, MAX_TEXT_CHARS)},
                validate=validate_merge,
                default=MergeDecision(),
                schema=schemas.should_merge(),
                offline=lambda rules: rules.should_merge(a, b),
            ),
            agent_id,
        )

    def evolution_judge(self, old: str, new: str, *, agent_id: str | None = None) -> Judgement:
        """EVOLVE / EXPAND (with merged content) / CONFLICT / NEW for a similar new note."""
        return self._run(
            _Call(
                role="evolution_judge",
                variables={"old": _clip(old, MAX_TEXT_CHARS), "new": _clip(new, MAX_TEXT_CHARS)},
                validate=validate_judgement,
                default=Judgement(),
                schema=schemas.evolution_judge(),
                offline=lambda rules: rules.evolution_judge(old, new),
            ),
            agent_id,
        )

    def conflict_scan(self, texts: Sequence[str], *, agent_id: str | None = None) -> list[ConflictFinding]:
        """Validated contradiction pairs within one batch (indices into `texts`)."""
        batch = list(texts)
        if len(batch) < 2:
            return []
        numbered = "\n".join(f"[{i}] {_one_line(t, MAX_CANDIDATE_CHARS)}" for i, t in enumerate(batch))
        validate = conflict_validator(len(batch))
        return self._run(
            _Call(
                role="conflict_scan",
                variables={"notes": numbered},
                validate=validate,
                default=[],
                schema=schemas.conflict_scan(),
                # Re-validate: offline rules are ours, but the sweep trusts these indices.
                offline=lambda rules: validate([vars(f) for f in rules.conflict_scan(batch)]) or [],
            ),
            agent_id,
        )

    def episode(self, turns: Sequence[str], *, agent_id: str | None = None) -> EpisodeSummary | None:
        """A summary of a closed session's turns; None offline or on failure (the caller's extractive one then)."""
        shown = [t for t in turns if t and t.strip()]
        if not shown:
            return None
        lines = "\n".join(f"- {_one_line(t, MAX_TURN_CHARS)}" for t in shown[-MAX_EPISODE_TURNS:])
        return self._run(
            _Call(
                role="episode",
                variables={"turns": lines},
                validate=validate_episode,
                default=None,
                schema=schemas.episode(),
                offline=lambda rules: None,
            ),
            agent_id,
        )

    def reflect(self, notes: Sequence[str], *, agent_id: str | None = None) -> Reflection | None:
        """A reflection over numbered notes, citing their indices; None offline or on failure."""
        shown = list(notes)[:MAX_REFLECT_NOTES]
        if not shown:
            return None
        numbered = "\n".join(f"[{i}] {_one_line(t, MAX_CANDIDATE_CHARS)}" for i, t in enumerate(shown))
        return self._run(
            _Call(
                role="reflect",
                variables={"notes": numbered},
                validate=reflection_validator(len(shown)),
                default=None,
                schema=schemas.reflect(),
                offline=lambda rules: None,
            ),
            agent_id,
        )

    # ------------------------------------------------------------------ plumbing

    def _run(self, call: _Call[T], agent_id: str | None) -> T:
        tier = self.config.tier_for(call.role)
        if tier.provider == "none":
            return self._run_offline(call, tier, agent_id)
        # A render failure is our bug (wrong variables), so it is allowed to raise.
        prompt = prompts.render(call.role, self.config.prompt_locale, call.variables)
        started = time.monotonic()
        reply = self._send(call, tier, prompt, agent_id, started)
        if reply is None:
            return self._fall_back(call)
        echoed = echo_check(prompt, [str(v) for v in call.variables.values()])
        parsed = parse(reply.text, call.validate, truncated=reply.truncated, reject=echoed)
        tokens = (reply.tokens_in, reply.tokens_out)
        if parsed is None:
            cut = " (cut at the token budget)" if reply.truncated else ""
            self._record(
                call.role,
                tier,
                agent_id,
                started,
                tokens=tokens,
                outcome="parse_error",
                error=f"unusable reply{cut}{self._fallback_note}: {reply.text[:300]!r}",
            )
            return self._fall_back(call)
        value, notes = parsed.value, []
        if parsed.repaired:
            notes.append("repaired reply" + (" (cut at the token budget)" if reply.truncated else ""))
        if call.mend is not None and self.offline is not None:
            value, filled = self._mend(call, value)
            if filled:
                notes.append(f"filled by offline rules: {', '.join(filled)}")
        self._record(call.role, tier, agent_id, started, tokens=tokens, error="; ".join(notes))
        return value

    @property
    def _fallback_note(self) -> str:
        return "; answered by offline rules" if self.offline is not None else ""

    def _fall_back(self, call: _Call[T]) -> T:
        """The offline rules' answer for a step the model failed (the safe default without rules)."""
        if self.offline is None:
            return call.default
        try:
            return call.offline(self.offline)
        except Exception:
            log.exception("offline rules failed for %s", call.role)
            return call.default

    def _mend(self, call: _Call[T], value: T) -> tuple[T, list[str]]:
        assert call.mend is not None and self.offline is not None
        try:
            return call.mend(value, self.offline)
        except Exception:
            log.exception("offline rules failed to mend %s", call.role)
            return value, []

    def _send(
        self, call: _Call[Any], tier: TierConfig, prompt: str, agent_id: str | None, started: float
    ) -> Completion | None:
        """One provider round trip; a failure is recorded here and comes back as None."""
        schema = schemas.ReplySchema(call.role, call.schema) if call.schema is not None else None
        try:
            return complete(
                self.clients.get(tier),
                tier,
                prompt,
                BUDGETS[call.role],
                schema=schema,
                pool=self.clients,
            )
        except Exception as exc:  # SDK errors, timeouts, connection refused, bad payloads
            self._record(
                call.role,
                tier,
                agent_id,
                started,
                outcome="provider_error",
                error=f"{type(exc).__name__}: {exc}"[:480] + self._fallback_note,
            )
            return None

    def _run_offline(self, call: _Call[T], tier: TierConfig, agent_id: str | None) -> T:
        started = time.monotonic()
        with _offline_lock:
            first = call.role not in _offline_logged
            _offline_logged.add(call.role)
        if first:
            log.info("LLM role %s is answered by offline rules (provider none)", call.role)
        if self.offline is None:
            self._record(call.role, tier, agent_id, started, outcome="offline", error="no offline rules")
            return call.default
        try:
            value = call.offline(self.offline)
        except Exception as exc:
            log.exception("offline rules failed for %s", call.role)
            self._record(
                call.role,
                tier,
                agent_id,
                started,
                outcome="offline",
                error=f"{type(exc).__name__}: {exc}"[:500],
            )
            return call.default
        self._record(call.role, tier, agent_id, started, outcome="offline")
        return value

    def _record(
        self,
        role: str,
        tier: TierConfig,
        agent_id: str | None,
        started: float,
        *,
        outcome: str = "ok",
        error: str = "",
        tokens: tuple[int, int] = (0, 0),
    ) -> None:
        record = LlmCallRecord(
            role=role,
            tier=tier.name,
            provider=tier.provider,
            model=tier.model,
            tokens_in=tokens[0],
            tokens_out=tokens[1],
            latency_ms=int((time.monotonic() - started) * 1000),
            outcome=outcome,  # type: ignore[arg-type]
            error=error,
            agent_id=agent_id,
            created_at=datetime.now(UTC),
        )
        level = logging.WARNING if outcome in ("parse_error", "provider_error") else logging.INFO
        log.log(
            level,
            "llm role=%s tier=%s provider=%s model=%s outcome=%s tokens=%d/%d latency=%dms%s",
            role,
            record.tier,
            record.provider,
            record.model,
            outcome,
            record.tokens_in,
            record.tokens_out,
            record.latency_ms,
            f" error={error}" if error else "",
        )
        for watched in getattr(_watching, "stack", ()):
            watched.append(record)
        if self.recorder is not None:
            try:
                self.recorder(record)
            except Exception:
                # Accounting must never break the write path it is measuring.
                log.exception("LLM call recorder failed")


def build_llm(
    env: Mapping[str, str],
    configured: Mapping[str, Any],
    *,
    recorder: Recorder | None = None,
    offline: OfflineRules | None = None,
) -> LLM:
    """Convenience for settings-driven callers: resolve the config and build the façade."""
    return LLM(resolve_llm_config(env, configured), recorder=recorder, offline=offline)


def _fill_gaps(fields: NoteFields, offline: Callable[[], NoteFields]) -> tuple[NoteFields, list[str]]:
    """The model's fields with what it left empty or unusable taken from the offline rules."""
    if not fields.gaps:
        return fields, []
    rules = offline()
    filled = sorted(fields.gaps)
    updates: dict[str, Any] = {name: getattr(rules, name) for name in filled}
    if "note_type" in updates and updates["note_type"] != fields.note_type:
        updates["topics"] = rules.topics if updates["note_type"] == "knowledge" else []
    return replace(fields, **updates, gaps=frozenset()), filled


def _clip(text: str, limit: int) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[:limit] + "…"


def _one_line(text: str, limit: int) -> str:
    """Collapse newlines so one numbered entry can never impersonate the next."""
    return _clip(" ".join((text or "").split()), limit)


def _speaker(role: str) -> str:
    return "Assistant" if role.strip().lower() in ("assistant", "ai", "bot", "model") else "User"
