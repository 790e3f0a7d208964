"""Shared pieces of amem's management commands."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from engine.errors import AmemError
from memories.models import Agent


class AmemCommand(BaseCommand):
    """A command whose engine errors print as one line (CommandError), never a traceback."""

    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except AmemError as exc:
            raise CommandError(str(exc)) from None

    def agent(self, agent_id: str) -> Agent:
        from engine.write.pipeline import resolve_agent  # imported here: forwarding commands never need it

        return resolve_agent(agent_id)
