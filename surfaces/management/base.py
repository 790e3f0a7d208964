"""Shared pieces of amem's management commands."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import models, transaction

from engine.errors import AmemError
from memories.models import Agent
from memories.models.keys import BearerKey


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


class KeyOwnerCommand(AmemCommand):
    """A command for the holders of bearer keys (agents, gateways): create one with its first key,
    issue another, list keys, revoke one by its prefix. Only the key's hash is stored, so a new key
    is printed once."""

    key_model: type[BearerKey]

    def handle(self, *args, action: str, **options):
        getattr(self, f"_{action}")(**options)  # each subcommand is a method: _create, _key, _list, _revoke

    def describe(self, owner: Any) -> str:
        """The line printed above a new key, naming whose it is."""
        raise NotImplementedError

    def create_with_key(self, owner: models.Model, key_name: str) -> None:
        """Validate and save a new owner together with its first key (one-line errors, nothing saved on one)."""
        try:
            owner.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        with transaction.atomic():
            owner.save()
            self.issue_key(owner, key_name or "first key")

    def issue_key(self, owner: models.Model, key_name: str) -> None:
        _key, raw = self.key_model.issue(owner, name=key_name)
        self.stdout.write(self.describe(owner))
        self.stdout.write(f"api key: {raw}")
        self.stdout.write("Copy the key now: only its hash is stored.")

    def write_keys(self, keys) -> None:
        for key in keys:
            status = "revoked" if key.is_revoked else f"last used {key.last_used_at or 'never'}"
            self.stdout.write(f"  key {key.prefix}…\t{key.name}\t{status}")

    def revoke_key(self, prefix: str, *, kind: str = "key") -> BearerKey:
        """Revoke the one live key starting with ``prefix``; none or several → a one-line error."""
        keys = list(self.key_model._default_manager.filter(prefix__startswith=prefix, revoked_at__isnull=True))
        if not keys:
            raise CommandError(f"no live {kind} starts with {prefix!r}")
        if len(keys) > 1:
            raise CommandError(f"{len(keys)} keys start with {prefix!r}; give more of the prefix")
        keys[0].revoke()
        return keys[0]
