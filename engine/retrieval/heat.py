"""Heat: a small boost for notes that keep being retrieved (docs/architecture.md §4).

factor = 1 + weight · ln(1 + retrieval_count) / (age_days + 1), with the age
measured from ``last_accessed`` (else ``created_at``). Every retrieval resets
``last_accessed``, so a hot note sits near age 0 and the boost stays modest
(≈ +15 % after 20 retrievals at the default weight 0.05). Knowledge notes get
none: a fact is not more true because it was asked for often.
"""

from __future__ import annotations

import datetime as dt
import math

from memories.models import Note


def heat_factor(note: Note, now: dt.datetime, weight: float) -> float:
    """Multiplier for the fused score of ``note`` at ``now``."""
    if note.note_type == Note.KNOWLEDGE or weight <= 0 or not note.retrieval_count:
        return 1.0
    since = note.last_accessed or note.created_at
    age_days = max((now - since).total_seconds() / 86400.0, 0.0)
    return 1.0 + weight * math.log1p(note.retrieval_count) / (age_days + 1.0)
