"""Rebuild the index from the database (the system of record)."""

from __future__ import annotations

from django.core.management.base import CommandError
from tqdm import tqdm

from engine import runtime
from engine.errors import AmemError
from engine.index_sync import indexer
from memories import access
from memories.models import Agent, Note
from surfaces.management.base import AmemCommand

ID_CHUNK = 10_000


class Command(AmemCommand):
    help = (
        "Rebuild the vector index from the database. Default: every note. "
        "--agent X: one agent's notes; --dirty: only notes waiting for sync; "
        "--model M: re-embed everything with another embedding model (drops and rebuilds the index)."
    )

    def add_arguments(self, parser):
        scope = parser.add_mutually_exclusive_group()
        scope.add_argument("--agent", help="only this agent's notes")
        scope.add_argument("--dirty", action="store_true", help="only notes marked dirty")
        parser.add_argument("--model", help="embedding model to rebuild with (also set AMEM_EMBED_MODEL to it)")
        parser.add_argument("--recreate", action="store_true", help="drop the index collections first")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, agent=None, dirty=False, model=None, recreate=False, no_progress=False, **options):
        if model and (agent or dirty):
            raise CommandError("--model rebuilds the whole index; it cannot be combined with --agent or --dirty")
        if not runtime.index_available():
            raise CommandError("this process runs as a worker (AMEM_PROCESS_ROLE=worker) and may not open the index")
        if model:
            runtime.use_model(model)
            _ = runtime.embedder().dimension  # fail now, before anything is dropped, if the model is unknown
            recreate = True
        store = runtime.store()
        if recreate:
            for name in store.collections():
                store.drop_collection(name)
            runtime.close_store()
            store = runtime.store()

        if dirty:
            notes = Note.objects.dirty()
        elif agent:
            agent_obj = self.agent(agent)
            notes = Note.objects.filter(agent_id=agent_obj.pk)
        else:
            notes = Note.objects.all()
        if not dirty:
            notes.mark_dirty()
        bar = tqdm(total=notes.filter(index_dirty=True).count(), unit="note", disable=no_progress, desc="indexing")
        result = indexer.sync_dirty(among=notes, progress=bar.update)
        bar.close()
        if result.error:
            raise CommandError(f"indexed {result.indexed} notes, then the index failed: {result.error}")
        removed = 0 if dirty else self._remove_strays(store)
        store.optimize()
        self.stdout.write(f"indexed {result.indexed} notes, removed {removed} stale index entries")
        if model:
            self.stdout.write(f"The index now uses {model!r}: set AMEM_EMBED_MODEL={model} for every process.")

    def _remove_strays(self, store) -> int:
        """Delete index points whose note is gone or belongs to another collection."""
        agents = {a.pk: a for a in Agent.objects.all()}
        removed = 0
        for collection in store.collections():
            try:
                ids = list(store.ids(collection))
            except AmemError:
                continue
            home = {}
            for start in range(0, len(ids), ID_CHUNK):  # SQLite caps the variables of one query
                found = Note.objects.filter(pk__in=ids[start : start + ID_CHUNK]).values_list("pk", "agent_id")
                home.update({str(pk): access.collection_for(agents[a]) if a in agents else None for pk, a in found})
            stray = [i for i in ids if i not in home or (home[i] is not None and home[i] != collection)]
            store.delete(collection, stray)
            removed += len(stray)
        return removed
