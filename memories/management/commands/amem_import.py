"""Import memories from files: an amem export (restored as is), JSONL / text / Markdown (written anew)
or a chat transcript (one episodic note per turn, with the turn before it as context)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

from django.core.management.base import CommandError
from tqdm import tqdm

from engine import runtime
from engine.config import get_config
from engine.errors import AmemError, IndexLocked
from engine.index import indexer
from engine.text import check_content, check_context
from engine.transfer.ingest import ChatLine, Item, items_from, turns_from
from engine.transfer.portable import is_export, restore
from engine.write import conversation
from engine.write.conversation import Turn, add_conversation, adjacent_links, contexts
from engine.write.pipeline import add_memory, clean_labels
from memories.access import collection_for
from memories.management.base import AmemCommand
from memories.models import Agent, Link, Note

OUTCOMES = ("created", "folded", "flagged", "duplicate", "rejected")


class Command(AmemCommand):
    help = (
        "Import memories: amem_import FILE [FILE ...] [--agent demo] "
        "[--format auto|jsonl|text|markdown|conversation] [--scope shared] [--subject alex]. "
        "An amem_export file is restored losslessly (no --agent needed); JSONL, text and Markdown go "
        "through the full write pipeline, dedup included. --format conversation reads a chat transcript "
        '(JSONL, one turn per line: {"text", "speaker", "session", "id", "occurred_at", "subjects"}) and '
        "stores each turn as an episodic note with the previous turn of its session as context, "
        "adjacent turns linked."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+")
        parser.add_argument("--agent", help="the agent the memories belong to (not needed for amem exports)")
        parser.add_argument("--format", default="auto", choices=["auto", "jsonl", "text", "markdown", "conversation"])
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
            raise CommandError("--agent is required for anything but an amem export")
        owner = self.agent(agent)
        if format == "conversation":
            self._import_conversation(files, owner, scope, subjects, no_progress)
            return
        items = [item for path in files for item in items_from(path, None if format == "auto" else format)]
        counts: Counter[str] = Counter()
        rejected: list[str] = []
        for item in tqdm(items, desc="importing", unit="memory", disable=no_progress):
            outcome = self._write(item, owner, scope, subjects, rejected)
            counts[outcome] += 1
        self._report(counts, rejected)

    def _report(self, counts: Counter[str], rejected: list[str]) -> None:
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
            raise _locked(locked) from None
        except AmemError as exc:
            rejected.append(f"{item.where}: {exc}")
            return "rejected"
        return result.outcome

    def _import_conversation(self, files: list[Path], owner: Agent, scope, subjects, no_progress: bool) -> None:
        """Every file parsed and checked before the first write: a broken line writes nothing."""
        transcripts = [list(turns_from(path)) for path in files]
        rejected: list[str] = []
        kept = [_kept_turns(lines, subjects, rejected) for lines in transcripts]
        try:
            # add_conversation indexes after commit and leaves notes dirty if the index is
            # locked; open it first so a running server stops the import, as on the other path.
            if runtime.index_available():
                runtime.store().ensure_collection(collection_for(owner))
            with tqdm(total=sum(map(len, kept)), desc="importing", unit="turn", disable=no_progress) as bar:
                for turns in kept:
                    self._write_conversation(turns, owner, scope or "private", bar)
        except IndexLocked as locked:
            raise _locked(locked) from None
        self._report(Counter(created=sum(map(len, kept)), rejected=len(rejected)), rejected)

    def _write_conversation(self, turns: list[Turn], owner: Agent, scope: str, bar: tqdm) -> None:
        """One file's turns in chunks of MAX_TURNS; the last turn of a chunk is linked to the next one."""
        last: tuple[Turn, Note] | None = None
        for start in range(0, len(turns), conversation.MAX_TURNS):
            chunk = turns[start : start + conversation.MAX_TURNS]
            notes = add_conversation(owner, chunk, scope=scope, actor="import")
            if last:
                bridge = adjacent_links([last[0], chunk[0]], [last[1], notes[0]], "import")
                Link.objects.bulk_create(bridge, ignore_conflicts=True)
            last = (chunk[-1], notes[-1])
            bar.update(len(chunk))

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


def _kept_turns(lines: list[ChatLine], subjects: list[str], rejected: list[str]) -> list[Turn]:
    """The turns that pass the quality gate, each carrying its context from the full transcript.

    Contexts come from every line, rejected ones included: the turn after a bare "Yes!"
    answers that "Yes!", not the question before it.
    """
    cfg = get_config()
    limits = {"min_chars": cfg.quality_min_chars, "max_chars": cfg.max_note_chars}
    kept: list[Turn] = []
    for line, context in zip(lines, contexts([line.turn for line in lines]), strict=False):
        turn = line.turn
        merged = [*turn.subjects, *[s for s in subjects if s not in turn.subjects]]
        try:
            # The gate judges what was said: a speaker's name must not carry "ok" past it.
            check_content(line.said, **limits)
            check_content(turn.text, **limits)  # what is stored, the name included
            # The previous line may itself have been refused (too long, control characters).
            check_context(context, max_chars=cfg.max_note_chars)
            clean_labels(merged, "subjects")
        except AmemError as exc:
            rejected.append(f"{line.where}: {exc}")
            continue
        kept.append(replace(turn, context=context, subjects=merged))
    return kept


def _locked(locked: IndexLocked) -> CommandError:
    return CommandError(f"{locked} Stop the server for a bulk import, or import through its API.")


def _first_line(path: Path) -> str:
    with path.open(encoding="utf-8", errors="replace") as handle:
        return handle.readline()
