"""L2 fold (docs/architecture.md §3): a new text almost identical to a writable note merges into it.

Unlike the seed, which overwrote the old text and left its keywords, tags and
context stale (research §17.5), the fold keeps the old state in a ``fold``
event, merges the new detail (the model's merged text or, offline, both
sentences), re-constructs the fields for the merged text, re-embeds it with the
one recipe and keeps the union of the sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine import runtime
from engine.config import EngineConfig
from engine.errors import AmemError
from engine.index.embeddings import to_bytes
from engine.llm.types import NoteFields
from engine.text import check_content, content_hash, normalise
from engine.write.construct import apply_fields, construct, fields_of, recipe_vectors
from memories import access
from memories.models import Agent, Note, NoteEvent


@dataclass(frozen=True)
class FoldPlan:
    target: Note
    revision: int
    new_text: str
    merged: str
    ephemeral: bool
    # None when the merge adds nothing to the target's text: no construction, no new vector.
    fields: NoteFields | None = None
    vector: np.ndarray | None = None


def plan_fold(agent: Agent, target: Note, new_text: str, cfg: EngineConfig) -> FoldPlan | None:
    """Merge text and fields for the fold, or None when the texts should stay two notes.

    None when the model judges them different facts (near-identical wording can
    still disagree: "likes tea" / "no longer likes tea") or the merged text
    fails the checks a new note must pass.
    """
    decision = runtime.llm().should_merge(target.content, new_text, agent_id=agent.pk)
    if not decision.should_merge:
        return None
    try:
        checked = check_content(decision.merged, min_chars=cfg.quality_min_chars, max_chars=cfg.max_note_chars)
    except AmemError:
        return None
    if normalise(checked.text) == normalise(target.content):
        return FoldPlan(target, target.revision, new_text, target.content, target.ephemeral)
    fields = construct(checked.text, agent.pk, note_type=target.note_type)
    vector = recipe_vectors([(checked.text, fields)])[0]
    return FoldPlan(target, target.revision, new_text, checked.text, checked.ephemeral, fields, vector)


def apply_fold(
    fold_plan: FoldPlan, sources: Sequence[str], agent_id: str, actor: str, *, tags: dict | None = None
) -> Note | None:
    """Apply inside the caller's transaction; None if the target changed since it was read.

    ``tags`` (a merge's group, the review op) go into the fold event as it is written.
    """
    note = Note.objects.select_for_update().filter(pk=fold_plan.target.pk).first()
    if note is None or note.revision != fold_plan.revision or not access.can_write(agent_id, note):
        return None
    before = {**fields_of(note), "sources": list(note.sources or [])}
    if fold_plan.fields is not None and fold_plan.vector is not None:
        note.content = fold_plan.merged
        note.content_hash = content_hash(fold_plan.merged)
        note.ephemeral = fold_plan.ephemeral
        apply_fields(note, fold_plan.fields)
        note.embedding, note.embedding_model = to_bytes(fold_plan.vector), runtime.embedder().model_name
        note.mark_dirty()
    note.sources = list(dict.fromkeys([*(note.sources or []), *sources]))
    note.save()
    NoteEvent.objects.create(
        note=note,
        action="fold",
        before=before,
        after={**fields_of(note), "sources": note.sources, "folded_text": fold_plan.new_text, **(tags or {})},
        actor=actor,
    )
    return note
