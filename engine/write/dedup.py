"""The dedup ladder (docs/architecture.md §3): L1 exact hash, L2 fold at ≥ 0.85, L2.5 flag at ≥ 0.72.

Like with like: stored vectors embed content + keywords + tags + context, but a
new text has no constructed fields yet, and constructing it first would pay an
LLM call for every duplicate. So the index is only used to *recall* the nearest
readable notes (raw text against stored vectors), and each candidate is then
scored by the cosine of its content against the new content, both embedded raw.
That compares the two texts on equal terms and keeps construction off the path
of a fold.

Subjects must match for a note to count as the same memory: "likes hiking"
about alex is not a duplicate of "likes hiking" about sam (or of a world fact).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine import runtime
from engine.config import EngineConfig
from engine.index.embeddings import from_bytes
from engine.index_sync import lookup
from engine.text import content_hash
from memories import access
from memories.models import Agent, Note

# Notes recalled from the index before re-scoring on content.
DEDUP_POOL = 8

INSERT, FOLD, FLAG = "insert", "fold", "flag"


@dataclass(frozen=True)
class Resemblance:
    note: Note
    similarity: float  # content against content
    writable: bool


@dataclass(frozen=True)
class Decision:
    action: str  # insert | fold | flag
    target: Note | None = None
    similarity: float | None = None


def same_subjects(a: Sequence[str] | None, b: Sequence[str] | None) -> bool:
    return sorted(a or []) == sorted(b or [])


def step_for(similarity: float, cfg: EngineConfig) -> str:
    """The rung a similarity lands on: fold ≥ dedup_fold_sim > flag ≥ dedup_flag_sim > insert."""
    if similarity >= cfg.dedup_fold_sim:
        return FOLD
    if similarity >= cfg.dedup_flag_sim:
        return FLAG
    return INSERT


def find_exact(agent: Agent, text: str, subjects: Sequence[str]) -> Note | None:
    """L1: an active note the caller may read with the same normalised text and subjects."""
    matches = Note.objects.filter(access.readable_q(agent), content_hash=content_hash(text)).order_by("created_at")
    for note in matches:
        if access.can_read(agent.pk, note) and same_subjects(note.subjects, subjects):
            return note
    return None


def content_vectors(notes: Sequence[Note]) -> np.ndarray:
    """Raw-content embeddings; a note whose stored vector already is one (episodic) is not re-embedded."""
    emb = runtime.embedder()
    rows: list[np.ndarray | None] = []
    for note in notes:
        bare = not (note.keywords or note.tags or note.context)
        stored = from_bytes(note.embedding) if bare and note.embedding_model == emb.model_name else None
        rows.append(stored)
    missing = [i for i, row in enumerate(rows) if row is None]
    if missing:
        fresh = emb.encode([notes[i].content for i in missing])
        for i, vector in zip(missing, fresh, strict=True):
            rows[i] = vector
    if not rows:
        return np.zeros((0, emb.dimension), dtype=np.float32)
    return np.vstack([r for r in rows if r is not None])


def resemblances(agent: Agent, raw_vector: np.ndarray, subjects: Sequence[str]) -> list[Resemblance]:
    """Readable notes with the same subjects, scored content against content, best first."""
    subject = subjects[0] if subjects else None
    recalled = lookup.dense_neighbours(agent, raw_vector, DEDUP_POOL, subject=subject)
    notes = [nb.note for nb in recalled if same_subjects(nb.note.subjects, subjects)]
    if not notes:
        return []
    similarities = content_vectors(notes) @ raw_vector
    found = [
        Resemblance(note, float(sim), access.can_write(agent.pk, note))
        for note, sim in zip(notes, similarities, strict=True)
    ]
    return sorted(found, key=lambda r: -r.similarity)


def decide(found: Sequence[Resemblance], cfg: EngineConfig) -> Decision:
    """Fold into or flag against the closest note the caller may write; otherwise insert.

    A close note the caller cannot write (another agent's shared note) never
    receives the new text and is not a merge candidate: its owner decides.
    """
    writable = [r for r in found if r.writable]
    if not writable:
        return Decision(INSERT)
    best = max(writable, key=lambda r: r.similarity)
    step = step_for(best.similarity, cfg)
    if step == INSERT:
        return Decision(INSERT)
    return Decision(step, best.note, best.similarity)
