"""Erase, irreversibly, one note, every note about a subject, or a whole agent (engine/erasure.py)."""

from __future__ import annotations

from django.core.management.base import CommandError

from engine import erasure
from memories.ids import check_agent_id
from memories.models import Agent
from surfaces.management.base import AmemCommand


class Command(AmemCommand):
    help = (
        "Erase memory for good (a person asked to be forgotten): --note ID, --subject NAME "
        "(with --agent: only that agent's notes), or --agent ID alone (the whole agent). "
        "Text and vectors leave the database, history, index and caches; an audit record "
        "without content stays. Irreversible: --yes is required."
    )

    def add_arguments(self, parser):
        parser.add_argument("--note", help="the id of one note")
        parser.add_argument("--subject", help="every note about this subject (its facts and core blocks too)")
        parser.add_argument("--agent", help="with --subject: only this agent's; alone: the whole agent")
        parser.add_argument("--actor", default="operator", help="who asked (kept in the audit record)")
        parser.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")

    def handle(self, *args, note=None, subject=None, agent=None, actor="operator", yes=False, **options):
        if sum(x is not None for x in (note, subject)) > 1 or (note and agent):
            raise CommandError("give one of --note ID, --subject NAME [--agent ID], --agent ID")
        if not (note or subject or agent):
            raise CommandError("nothing to erase: give --note ID, --subject NAME or --agent ID")
        if not yes:
            raise CommandError("erasure cannot be undone; add --yes to confirm")
        who = f"cli:{actor}"
        if note:
            done = erasure.erase_note(note, None, actor=who)
        elif subject:
            done = erasure.erase_subject(subject, self._any_agent(agent) if agent else None, actor=who)
        else:
            done = erasure.erase_agent(self._any_agent(agent), actor=who)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(done.counts.items()))
        self.stdout.write(f"erasure {done.pk} ({done.scope}): {counts}")

    def _any_agent(self, agent_id: str) -> Agent:
        # Retired agents too: a person may ask after the agent was switched off.
        found = Agent.objects.filter(pk=check_agent_id(agent_id)).first()
        if found is None:
            raise CommandError(f"no agent {agent_id!r}")
        return found
