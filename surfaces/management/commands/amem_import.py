"""Import memories from files: an amem export (restored as is), JSONL / text / Markdown (written anew),
a chat transcript (one episodic note per turn, with the turn before it as context), or the stores of
the seed plugins (openclaw-amem's Qdrant collection, memory-engine's workspace: engine/transfer/seed_import.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

from django.core.management.base import CommandError
from tqdm import tqdm

from engine import runtime
from engine.config import get_config
from engine.errors import AmemError, IndexLocked, IndexUnavailable
from engine.index_sync import indexer
from engine.text import check_content, check_context
from engine.transfer import seed_import
from engine.transfer.ingest import ChatLine, Item, items_from, turns_from
from engine.transfer.portable import is_export, restore
from engine.write import conversation
from engine.write.conversation import Turn, add_conversation, adjacent_links, contexts
from engine.write.pipeline import add_memory, clean_labels
from memories.access import collection_for
from memories.models import Agent, Link, Note
from surfaces.management.base import AmemCommand

OUTCOMES = ("created", "folded", "flagged", "duplicate", "rejected")
SEED_FORMATS = ("openclaw-amem", "memory-engine", "mem0")


class Command(AmemCommand):
    help = (
        "Import memories: amem_import FILE [FILE ...] [--agent demo] "
        "[--format auto|jsonl|text|markdown|conversation] [--scope shared] [--subject alex]. "
        "An amem_export file is restored losslessly (no --agent needed); JSONL, text and Markdown go "
        "through the full write pipeline, dedup included. --format conversation reads a chat transcript "
        '(JSONL, one turn per line: {"text", "speaker", "session", "id", "occurred_at", "subjects"}) and '
        "stores each turn as an episodic note with the previous turn of its session as context, "
        "adjacent turns linked. --format openclaw-amem imports the seed plugin's Qdrant collection "
        "(--qdrant-url URL [--collection amem_notes], --qdrant-path DIR, or JSON dump files); --format "
        "memory-engine imports a memory-engine workspace, JSONL or SQLite (--agent required; --core-conflict "
        "keep|replace|rename for core blocks the agent already has); --format mem0 imports mem0's get_all JSON or "
        "export (--agent required). They keep ids, links, history and access fields, report bad records with their "
        "position and skip them, and exit 1 when any record was skipped; --dry-run only counts."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*")
        parser.add_argument("--agent", help="the agent the memories belong to (not needed for amem exports)")
        parser.add_argument(
            "--format", default="auto", choices=["auto", "jsonl", "text", "markdown", "conversation", *SEED_FORMATS]
        )
        parser.add_argument("--qdrant-url", help="openclaw-amem: the Qdrant server holding the seed's collection")
        parser.add_argument("--qdrant-path", help="openclaw-amem: a local Qdrant folder (qdrant-client local mode)")
        parser.add_argument("--qdrant-api-key", help="openclaw-amem: the Qdrant server's API key, if it needs one")
        parser.add_argument("--collection", default="amem_notes", help="openclaw-amem: the collection (amem_notes)")
        parser.add_argument(
            "--map-agent",
            action="append",
            default=[],
            metavar="SEED=AMEM",
            help="openclaw-amem: store the seed agent SEED's notes as amem agent AMEM (repeatable)",
        )
        parser.add_argument("--dry-run", action="store_true", help="seed formats: check and count, write nothing")
        parser.add_argument(
            "--core-conflict",
            default="keep",
            choices=seed_import.CORE_CONFLICTS,
            help="memory-engine: a core block the agent already has under the same name: keep the agent's "
            "(default), replace it (its old value stays in the block's history), or rename the imported one "
            "(<name>_imported)",
        )
        parser.add_argument("--scope", default=None, choices=["private", "shared"])
        parser.add_argument("--subject", action="append", default=[], dest="subjects")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **options):
        self._import(*args, **options)
        self._settle_index()

    def _settle_index(self) -> None:
        """Merge the index segments a bulk import left (engine/index/store.py ``optimize``): searches
        then read one segment per shard instead of the many small ones the batches wrote."""
        opened = runtime.opened_store()
        if opened is not None:  # else nothing was indexed by this process (a server owns the index)
            opened.optimize()

    def _import(self, *args, paths, agent, format, scope, subjects, no_progress, **options):
        if format in SEED_FORMATS:
            self._import_seed(format, paths, agent, no_progress, **options)
            return
        if not paths:
            raise CommandError("give the files to import")
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
            notes = add_conversation(owner, chunk, scope=scope, actor="import").notes
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

    # --- the seed plugins' stores (engine/seed_import.py) -------------------------------------------

    def _import_seed(self, fmt, paths, agent, no_progress, *, dry_run=False, core_conflict="keep", **options) -> None:
        try:
            if fmt == "openclaw-amem":
                plan = self._plan_openclaw_amem(paths, **options)
            elif fmt == "mem0":
                if not agent:
                    raise CommandError("--agent is required for --format mem0 (the amem agent the memories go to)")
                if not paths or not all(Path(p).is_file() for p in paths):
                    raise CommandError("give mem0's JSON file(s): the get_all() answer or an export")
                owner = seed_import.check_agent_id(agent, "--agent")
                plan = seed_import.plan_mem0((r for p in paths for r in seed_import.mem0_records(Path(p))), owner)
            else:
                if not agent:
                    raise CommandError("--agent is required for --format memory-engine (the workspace names none)")
                if len(paths) != 1:
                    raise CommandError("give one memory-engine workspace (or its memory/ folder)")
                plan = seed_import.plan_memory_engine(Path(paths[0]), seed_import.check_agent_id(agent, "--agent"))
        except seed_import.BadRecord as exc:
            raise CommandError(str(exc)) from None
        plan.core_conflict = core_conflict
        self.stdout.write(
            f"{fmt}{f' ({plan.source})' if plan.source else ''}: {plan.records} record(s) read: "
            f"{len(plan.notes)} to import, {len(plan.bad)} skipped; "
            f"{len(plan.links)} link(s), {len(plan.events)} history event(s), {len(plan.conflicts)} conflict pair(s); "
            f"agent(s): {', '.join(sorted(plan.agents)) or '-'}"
        )
        if plan.core or plan.facts or plan.episodes:
            self.stdout.write(
                f"memory layers: {len(plan.core)} core block(s), {len(plan.facts)} fact(s), "
                f"{len(plan.episodes)} episode(s) to import"
            )
        for part, why in plan.skipped_parts.items():
            self.stdout.write(f"{part}: {why}")
        for line in plan.bad:
            self.stderr.write(f"skipped {line}")
        for line in plan.warnings:
            self.stderr.write(f"warning {line}")
        if dry_run:
            self.stdout.write("dry run: nothing written")
            self._refuse_if_skipped(plan)
            return
        outcome = seed_import.apply(plan)
        self.stdout.write(
            f"imported {outcome.notes} note(s) ({outcome.existing} already present), {outcome.links} link(s) "
            f"({outcome.dangling_links} to notes not imported), {outcome.events} event(s), "
            f"{outcome.conflicts} conflict pair(s)"
            + (f"; created agent(s) {', '.join(outcome.agents_created)}" if outcome.agents_created else "")
        )
        if plan.core or plan.facts or plan.episodes:
            self.stdout.write(
                f"imported {outcome.core_blocks} core block(s) ({outcome.core_existing} already there, kept), "
                f"{outcome.facts} fact(s) ({outcome.facts_existing} already known), "
                f"{outcome.episodes} episode(s) ({outcome.episodes_existing} already present)"
            )
        for name in outcome.core_kept:
            self.stderr.write(
                f"core block {name!r}: the agent already has one; kept it, the imported block was not written "
                "(--core-conflict replace or rename to import it)"
            )
        for name in outcome.core_replaced:
            self.stdout.write(f"core block {name!r}: replaced (the old value is in the block's history)")
        for name in outcome.core_renamed:
            self.stdout.write(f"core block imported as {name!r} (the agent's own block of that name was kept)")
        self._index_imported(outcome.note_ids, no_progress)
        self._refuse_if_skipped(plan)

    def _refuse_if_skipped(self, plan) -> None:
        """A skipped record is a failed import for a script: exit 1, saying how to finish it."""
        if plan.bad:
            raise CommandError(
                f"{len(plan.bad)} record(s) skipped (listed above); the rest "
                "was imported unless this was a dry run. Fix them and run the same import again: records already "
                "imported are left as they are, and links to the fixed records are restored."
            )

    def _plan_openclaw_amem(self, paths, *, qdrant_url, qdrant_path, qdrant_api_key, collection, map_agent, **_):
        agent_map = {}
        for pair in map_agent:
            seed, sep, ours = pair.partition("=")
            if not sep or not seed or not ours:
                raise CommandError(f"--map-agent takes SEED=AMEM, not {pair!r}")
            agent_map[seed] = seed_import.check_agent_id(ours, "--map-agent")
        sources = sum(bool(x) for x in (qdrant_url, qdrant_path, paths))
        if sources != 1:
            raise CommandError("give one source: --qdrant-url URL, --qdrant-path DIR, or JSON dump file(s)")
        if paths:
            for p in paths:
                if not Path(p).is_file():
                    raise CommandError(f"no such file: {p}")
            records = (r for p in paths for r in seed_import.dump_records(Path(p)))
            return seed_import.plan_openclaw_amem(records, agent_map=agent_map)
        client = seed_import.qdrant_client(url=qdrant_url, path=qdrant_path, api_key=qdrant_api_key)
        try:
            if not client.collection_exists(collection):
                raise CommandError(f"no collection {collection!r} at {qdrant_url or qdrant_path} (--collection)")
            return seed_import.plan_openclaw_amem(seed_import.qdrant_records(client, collection), agent_map=agent_map)
        finally:
            client.close()

    def _index_imported(self, note_ids, no_progress: bool) -> None:
        if not note_ids:
            return
        try:
            bar = tqdm(total=len(note_ids), desc="indexing", unit="note", disable=no_progress)
            synced = indexer.sync_dirty(among=Note.objects.filter(pk__in=note_ids), progress=bar.update)
            bar.close()
        except (IndexLocked, IndexUnavailable):
            synced = None
        if synced is None or synced.failed or synced.indexed < len(note_ids):
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
            # contexts() cut an over-long previous line to the limit; control characters still refuse.
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
