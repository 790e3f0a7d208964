"""Create, list and revoke agents and their API keys."""

from __future__ import annotations

from django.core.management.base import CommandError

from memories.ids import check_agent_id
from memories.models import Agent, ApiKey, Note
from surfaces.management.base import KeyOwnerCommand


class Command(KeyOwnerCommand):
    key_model = ApiKey
    help = "Manage agents: create (prints a key once), list, key (issue another), revoke (a key by prefix)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create an agent and print its first API key")
        create.add_argument("agent_id")
        create.add_argument("--name", default="")
        create.add_argument("--collection", default="", help="own index collection (Mode B)")
        sub.add_parser("list", help="list agents, their keys and note counts")
        key = sub.add_parser("key", help="issue another API key for an agent")
        key.add_argument("agent_id")
        key.add_argument("--name", default="")
        revoke = sub.add_parser("revoke", help="revoke an API key by its prefix")
        revoke.add_argument("prefix")

    def describe(self, agent: Agent) -> str:
        return f"agent: {agent.pk}" + (f" (own collection {agent.collection})" if agent.collection else "")

    def _create(self, agent_id: str, name: str, collection: str, **_):
        # The rule first: PostgreSQL refuses a NUL byte in a lookup with an error of its own.
        check_agent_id(agent_id)
        if Agent.objects.filter(pk=agent_id).exists():
            raise CommandError(f"agent {agent_id!r} already exists (use `amem_agent key {agent_id}` for a new key)")
        self.create_with_key(Agent(id=agent_id, name=name, collection=collection), name)

    def _key(self, agent_id: str, name: str, **_):
        self.issue_key(self.agent(agent_id), name)

    def _list(self, **_):
        for agent in Agent.objects.prefetch_related("keys"):
            notes = Note.objects.active().filter(agent_id=agent.pk).count()
            state = "active" if agent.is_active else "inactive"
            mode = f"own collection {agent.collection}" if agent.collection else "shared index"
            self.stdout.write(f"{agent.pk}\t{state}\t{mode}\t{notes} notes")
            self.write_keys(agent.keys.all())

    def _revoke(self, prefix: str, **_):
        key = self.revoke_key(prefix)
        self.stdout.write(f"revoked key {key.prefix}… of {key.owner_id}")
