"""Create, list and revoke agents and their API keys."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import transaction

from memories.management.base import AmemCommand
from memories.models import Agent, ApiKey, Note


class Command(AmemCommand):
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

    def handle(self, *args, action: str, **options):
        getattr(self, f"_{action}")(**options)

    def _create(self, agent_id: str, name: str, collection: str, **_):
        if Agent.objects.filter(pk=agent_id).exists():
            raise CommandError(f"agent {agent_id!r} already exists (use `amem_agent key {agent_id}` for a new key)")
        agent = Agent(id=agent_id, name=name, collection=collection)
        try:
            agent.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        with transaction.atomic():
            agent.save()
            _key, raw = ApiKey.issue(agent, name=name or "first key")
        self._print_key(agent, raw)

    def _key(self, agent_id: str, name: str, **_):
        agent = self.agent(agent_id)
        _key, raw = ApiKey.issue(agent, name=name)
        self._print_key(agent, raw)

    def _print_key(self, agent: Agent, raw: str) -> None:
        self.stdout.write(f"agent: {agent.pk}" + (f" (own collection {agent.collection})" if agent.collection else ""))
        self.stdout.write(f"api key: {raw}")
        self.stdout.write("Copy the key now: only its hash is stored.")

    def _list(self, **_):
        for agent in Agent.objects.prefetch_related("keys"):
            notes = Note.objects.active().filter(agent_id=agent.pk).count()
            state = "active" if agent.is_active else "inactive"
            mode = f"own collection {agent.collection}" if agent.collection else "shared index"
            self.stdout.write(f"{agent.pk}\t{state}\t{mode}\t{notes} notes")
            for key in agent.keys.all():
                status = "revoked" if key.is_revoked else f"last used {key.last_used_at or 'never'}"
                self.stdout.write(f"  key {key.prefix}…\t{key.name}\t{status}")

    def _revoke(self, prefix: str, **_):
        keys = list(ApiKey.objects.filter(prefix__startswith=prefix, revoked_at__isnull=True))
        if not keys:
            raise CommandError(f"no live key starts with {prefix!r}")
        if len(keys) > 1:
            raise CommandError(f"{len(keys)} keys start with {prefix!r}; give more of the prefix")
        keys[0].revoke()
        self.stdout.write(f"revoked key {keys[0].prefix}… of {keys[0].agent_id}")
