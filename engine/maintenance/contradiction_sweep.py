"""Contradiction sweep (docs/architecture.md §6): find notes of an agent that cannot both be true.

A full read, run by hand (``amem_jobs run contradiction_sweep``): every note goes to the model, one
call per batch. The night does not run it: ``pair_sweep`` asks the model only about the top of its
ranking, within ``AMEM_SWEEP_MODEL_CALLS`` a night.

Over the agent's own active memory notes (not knowledge, not shared), per
category, newest first, in batches of ``sweep_batch`` (25): one strong-tier call
per batch returns index pairs (validated by the LLM layer), each with a reason
and, when the model can tell, the superseded side. Every new pair opens a conflict
``Pair`` (engine/annotations/pairs.py).

* Incremental: a batch whose notes were all scanned since they last changed is
  skipped (``--force`` reads it again); after a batch is judged, every note in it
  is stamped ``conflict_scanned_at``. A failed call stamps nothing.
* Mode ``review`` (default, ``AMEM_CONFLICT_MODE``) only records. ``auto`` also
  retires the side the model named superseded and closes the pair; when the model
  names neither side, nothing is retired. An explicit mode (``amem_jobs run
  contradiction_sweep --mode``) wins over the setting.
* Offline (provider ``none``) there is no reading comprehension: this job skips (outcome
  ``skipped``); the nightly ``pair_sweep`` job (engine/maintenance/pair_sweep.py) weighs each
  changed note against its nearest notes.

Trade-off kept from the seed: two old notes that never share a batch are never compared.
"""

from __future__ import annotations

from itertools import groupby

from django.db import transaction
from django.utils import timezone

from engine import runtime
from engine.annotations import pairs
from engine.maintenance.runner import Step
from memories.models import Note


def scanned(note: Note) -> bool:
    return note.conflict_scanned_at is not None and note.conflict_scanned_at >= note.updated_at


def batches(notes: list[Note], size: int) -> list[list[Note]]:
    """Per category (notes come sorted by category, newest first), cut into ``size``; singles dropped."""
    cut: list[list[Note]] = []
    for _, group in groupby(notes, key=lambda n: n.category):
        members = list(group)
        cut += [members[k : k + size] for k in range(0, len(members), size) if len(members[k : k + size]) >= 2]
    return cut


def run(step: Step) -> None:
    llm = runtime.llm()
    if not llm.conflict_scan_available:
        step.skip("no model reads contradictions: pair_sweep weighs the notes offline")
        return
    auto = (step.options.get("mode") or step.cfg.conflict_mode) == "auto"
    force = bool(step.options.get("force"))
    notes = list(
        Note.objects.active()
        .filter(agent_id=step.agent.pk, note_type=Note.MEMORY)
        .order_by("category", "-created_at", "-pk")
    )
    todo = batches(notes, step.cfg.sweep_batch)
    step.grow(len(todo))
    for batch in todo:
        step.advance()
        if not force and all(scanned(n) for n in batch):
            step.count("batches_skipped")
            continue
        texts = [n.content for n in batch]
        findings, ok = step.llm("conflict_scan", lambda: llm.conflict_scan(texts, agent_id=step.agent.pk))  # noqa: B023 (called at once)
        if not ok:
            continue
        with transaction.atomic():
            for finding in findings:
                a, b = batch[finding.a], batch[finding.b]
                newer, older = sorted((a, b), key=lambda n: (n.created_at, str(n.pk)), reverse=True)
                pair, retired = pairs.model_conflict(
                    older,
                    newer,
                    reason=finding.reason,
                    superseded=batch[finding.superseded] if finding.superseded is not None else None,
                    actor=step.actor,
                    auto=auto,
                )
                step.count("pairs_found" if pair is not None else "pairs_known")
                if retired:
                    step.count("retired")
            stamp = timezone.now()
            for note in batch:
                # Only notes unchanged since they were read: a changed one is judged again next time.
                Note.objects.filter(pk=note.pk, revision=note.revision).update(conflict_scanned_at=stamp)
        step.count("batches_scanned")
        step.count("scanned", len(batch))
