"""How far the index is behind the database: the outbox, and notes the index should hold but does not.

An index folder lost or swapped for an empty one looks healthy (it answers, counts are read from
the database) while every search returns nothing. ``gap`` compares the notes the index should
hold (every note not erased and not waiting in the outbox) with the points it holds; the web
process logs a shortfall loudly at start (``report_at_start``) and ``/healthz?deep`` reports it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db.models import Min
from django.utils import timezone

from engine import runtime
from memories.models import Note

log = logging.getLogger("engine.index.coverage")


@dataclass
class Gap:
    notes: int  # notes the index should hold now
    points: int  # points it holds

    @property
    def missing(self) -> int:
        return max(self.notes - self.points, 0)

    def as_dict(self) -> dict:
        return {"notes": self.notes, "points": self.points, "missing": self.missing}

    def message(self) -> str:
        return (
            f"the index holds {self.points} notes but the database has {self.notes} indexed ones: "
            "searches miss the rest. Rebuild it: stop the server, run `manage.py amem_reindex --recreate`, start it."
        )


def gap() -> Gap:
    store = runtime.store()
    points = sum(store.count(name) for name in store.collections())
    notes = Note.objects.filter(erased_at__isnull=True, index_dirty=False).count()
    return Gap(notes, points)


def outbox() -> dict:
    dirty = Note.objects.filter(index_dirty=True)
    oldest = dirty.aggregate(oldest=Min("updated_at"))["oldest"]
    waited = (timezone.now() - oldest).total_seconds() if oldest else 0.0
    return {"dirty": dirty.count(), "oldest_seconds": round(waited, 1)}


def report_at_start() -> None:
    """Log loudly when the index holds fewer notes than the database (run once by the web process)."""
    try:
        found = gap()
    except Exception as exc:  # the index or database down: the health check reports that
        log.warning("could not compare the index with the database at start: %s", exc)
        return
    if found.missing:
        log.error("INDEX INCOMPLETE: %s", found.message())
