"""Add one memory for an agent from the command line."""

from __future__ import annotations

from django.core.management.base import CommandError

from engine.errors import IndexLocked
from engine.write import add_episodic, add_memory
from memories.management.base import AmemCommand


class Command(AmemCommand):
    help = (
        'Add a memory: amem_add --agent demo "text" [--scope shared] [--subject alex] [--source msg-1] '
        "[--type memory|knowledge] [--episodic]"
    )

    def add_arguments(self, parser):
        parser.add_argument("text")
        parser.add_argument("--agent", required=True)
        parser.add_argument("--scope", default="private", choices=["private", "shared"])
        parser.add_argument("--subject", action="append", default=[], dest="subjects")
        parser.add_argument("--source", action="append", default=[], dest="sources")
        parser.add_argument("--type", default=None, choices=["memory", "knowledge"], dest="note_type")
        parser.add_argument(
            "--episodic", action="store_true", help="the cheap path: no model calls, no dedup, no links"
        )

    def handle(self, *args, text, agent, scope, subjects, sources, note_type, episodic, **options):
        owner = self.agent(agent)
        if episodic:
            note = add_episodic(text, owner, scope=scope, subjects=subjects, sources=sources, actor="cli")
            self.stdout.write(str(note.pk))
            return
        try:
            result = add_memory(
                text, owner, scope=scope, subjects=subjects, sources=sources, note_type=note_type, actor="cli"
            )
        except IndexLocked as locked:
            # Dedup and linking read the index, which the running server owns.
            raise CommandError(
                f"{locked} Add the memory through the server's API, or use --episodic "
                "(stored now, indexed by the server later)."
            ) from None
        self.stdout.write(str(result.note.pk))
        self.stderr.write(f"{result.outcome}, {len(result.links)} link(s)")
