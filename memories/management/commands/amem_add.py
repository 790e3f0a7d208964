"""Add one memory for an agent from the command line."""

from __future__ import annotations

from engine.write import add_episodic
from memories.management.base import AmemCommand


class Command(AmemCommand):
    help = "Add a memory: amem_add --agent demo \"text\" [--scope shared] [--subject alex] [--source msg-1]"

    def add_arguments(self, parser):
        parser.add_argument("text")
        parser.add_argument("--agent", required=True)
        parser.add_argument("--scope", default="private", choices=["private", "shared"])
        parser.add_argument("--subject", action="append", default=[], dest="subjects")
        parser.add_argument("--source", action="append", default=[], dest="sources")

    def handle(self, *args, text, agent, scope, subjects, sources, **options):
        note = add_episodic(text, self.agent(agent), scope=scope, subjects=subjects, sources=sources, actor="cli")
        self.stdout.write(str(note.pk))
