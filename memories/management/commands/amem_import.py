"""Import memories from files: an amem export (restored as is) or JSONL / text / Markdown (written anew)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from django.core.management.base import CommandError
from tqdm import tqdm

from engine import indexer
from engine.errors import AmemError, IndexLocked
from engine.ingest import Item, items_from
from engine.portable import is_export, restore
from engine.write import add_memory
from memories.management.base import AmemCommand
from memories.models import Note

OUTCOMES = ("created", "folded", "flagged", "duplicate", "rejected")


class Command(AmemCommand):
    help = (
        "Import memories: amem_import FILE [FILE ...] [--agent demo] [--format auto|jsonl|text|markdown] "
        "[--scope shared] [--subject alex]. An amem_export file is restored losslessly (no --agent needed); "
        "anything else goes through the full write pipeline, dedup included."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+")
        parser.add_argument("--agent", help="the agent the memories belong to (not needed for amem exports)")
        parser.add_argument("--format", default="auto", choices=["auto", "jsonl", "text", "markdown"])
        parser.add_argument("--scope", default=None, choices=["private", "shared"])
        parser.add_argument("--subject", action="append", default=[], dest="subjects")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, paths, agent, format, scope, subjects, no_progress, **options):
        files = [Path(p) for p in paths]
        for path in files:
            if not path.is_file():
                raise CommandError(f"no such file: {path}")
        exports = [p for p in files if format == "auto" and is_export(_first_line(p))]
        if exports and len(exports) != len(files):
            raise CommandError("restore amem exports separately from other files")
        if exports:
            self._restore(exports, no_progress)
            return
        if not agent:
            raise CommandError("--agent is required for JSONL, text and Markdown files")
        owner = self.agent(agent)
        items = [item for path in files for item in items_from(path, None if format == "auto" else format)]
        counts: Counter[str] = Counter()
        rejected: list[str] = []
        for item in tqdm(items, desc="importing", unit="memory", disable=no_progress):
            outcome = self._write(item, owner, scope, subjects, rejected)
            counts[outcome] += 1
        self.stdout.write(", ".join(f"{counts[o]} {o}" for o in OUTCOMES))
        for line in rejected[:20]:
            self.stderr.write(f"rejected {line}")
        if len(rejected) > 20:
            self.stderr.write(f"… and {len(rejected) - 20} more rejected")

    def _write(self, item: Item, owner, scope, subjects, rejected: list[str]) -> str:
        try:
            result = add_memory(
                item.text,
                owner,
                scope=item.scope or scope or "private",
                subjects=[*item.subjects, *[s for s in subjects if s not in item.subjects]],
                sources=item.sources,
                note_type=item.note_type,
                occurred_at=item.occurred_at,
                actor="import",
            )
        except IndexLocked as locked:
            raise CommandError(f"{locked} Stop the server for a bulk import, or import through its API.") from None
        except AmemError as exc:
            rejected.append(f"{item.where}: {exc}")
            return "rejected"
        return result.outcome

    def _restore(self, paths: list[Path], no_progress: bool) -> None:
        handles = [path.open(encoding="utf-8") for path in paths]
        try:
            result = restore(handles)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        finally:
            for handle in handles:
                handle.close()
        bar = tqdm(total=len(result.note_ids), desc="indexing", unit="note", disable=no_progress)
        synced = indexer.sync_dirty(among=Note.objects.filter(pk__in=result.note_ids), progress=bar.update)
        bar.close()
        self.stdout.write(
            f"restored {result.agents} agent(s), {result.notes} note(s), {result.links} link(s), "
            f"{result.events} event(s); {result.existing} already present, {result.dangling} dangling reference(s)"
        )
        if synced.failed or synced.indexed < result.notes:
            self.stdout.write("indexing deferred: the notes stay marked and are indexed on the next sync")


def _first_line(path: Path) -> str:
    with path.open(encoding="utf-8", errors="replace") as handle:
        return handle.readline()
