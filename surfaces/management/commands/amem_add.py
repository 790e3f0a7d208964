"""Add one memory for an agent from the command line."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from engine.errors import IndexLocked
from surfaces.local_bridge import call_server
from surfaces.management.base import AmemCommand


class Command(AmemCommand):
    # Skip the URL and model checks (they import every view and the engine): a forwarded call
    # should cost an HTTP round trip, not the project's import time. `manage.py check` runs them.
    requires_system_checks: list[str] = []
    help = (
        'Add a memory: amem_add --agent demo "text" [--scope shared] [--subject alex] [--source msg-1] '
        "[--type memory|knowledge] [--episodic [--context TEXT]]"
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
        parser.add_argument(
            "--context",
            default="",
            help="with --episodic: what the event answers or where it happened (embedded with it)",
        )

    def handle(self, *args, text, agent, scope, subjects, sources, note_type, episodic, context, **options):
        if context and not episodic:
            raise CommandError("--context goes with --episodic (the full pipeline writes its own context)")
        from engine.write.pipeline import add_episodic, add_memory  # imported here: the model's stack

        owner = self.agent(agent)
        if episodic:
            note = add_episodic(
                text, owner, scope=scope, subjects=subjects, sources=sources, context=context, actor="cli"
            )
            self.stdout.write(str(note.pk))
            return
        row: dict[str, Any]  # id, outcome, links: written here, or the server's JSON answer
        try:
            result = add_memory(
                text, owner, scope=scope, subjects=subjects, sources=sources, note_type=note_type, actor="cli"
            )
            row = {"id": str(result.note.pk), "outcome": result.outcome, "links": len(result.links)}
        except IndexLocked as locked:
            # Dedup and linking read the index, which the running server owns: let it write.
            payload = {
                "agent": agent,
                "text": text,
                "scope": scope,
                "subjects": subjects,
                "sources": sources,
                "note_type": note_type,
            }
            row = call_server("add", payload, locked=locked)
        self.stdout.write(row["id"])
        self.stderr.write(f"{row['outcome']}, {row['links']} link(s)")
