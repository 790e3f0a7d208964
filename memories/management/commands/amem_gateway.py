"""Create, list and revoke gateways: one key acting for many agents under an id prefix."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import transaction

from memories.management.base import AmemCommand
from memories.models import Gateway, GatewayKey


class Command(AmemCommand):
    help = (
        "Manage gateways (an agent runtime with many agents, e.g. an OpenClaw gateway): create <prefix> "
        "(prints a key once), list, key <prefix> (issue another), revoke <key prefix>."
    )

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a gateway owning the agent ids that start with <prefix>")
        create.add_argument("prefix", help="ends with '-', e.g. openclaw-home-")
        create.add_argument("--name", default="")
        sub.add_parser("list", help="list gateways, their keys and agents")
        key = sub.add_parser("key", help="issue another key for a gateway")
        key.add_argument("prefix")
        key.add_argument("--name", default="")
        revoke = sub.add_parser("revoke", help="revoke a gateway key by its key prefix")
        revoke.add_argument("key_prefix")

    def handle(self, *args, action: str, **options):
        getattr(self, f"_{action}")(**options)

    def _create(self, prefix: str, name: str, **_):
        if Gateway.objects.filter(pk=prefix).exists():
            raise CommandError(f"gateway {prefix!r} already exists (use `amem_gateway key {prefix}` for a new key)")
        gateway = Gateway(prefix=prefix, name=name)
        try:
            gateway.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        with transaction.atomic():
            gateway.save()
            _key, raw = GatewayKey.issue(gateway, name=name or "first key")
        self._print_key(gateway, raw)

    def _key(self, prefix: str, name: str, **_):
        gateway = Gateway.objects.filter(pk=prefix).first()
        if gateway is None:
            raise CommandError(f"no gateway {prefix!r}")
        _key, raw = GatewayKey.issue(gateway, name=name)
        self._print_key(gateway, raw)

    def _print_key(self, gateway: Gateway, raw: str) -> None:
        self.stdout.write(f"gateway: {gateway.pk} (acts for agents {gateway.pk}<name>, created on first use)")
        self.stdout.write(f"api key: {raw}")
        self.stdout.write("Copy the key now: only its hash is stored.")

    def _list(self, **_):
        for gateway in Gateway.objects.prefetch_related("keys", "agents"):
            state = "active" if gateway.is_active else "inactive"
            agents = ", ".join(a.agent_id for a in gateway.agents.all()) or "no agents yet"
            self.stdout.write(f"{gateway.pk}\t{state}\t{agents}")
            for key in gateway.keys.all():
                status = "revoked" if key.is_revoked else f"last used {key.last_used_at or 'never'}"
                self.stdout.write(f"  key {key.prefix}…\t{key.name}\t{status}")

    def _revoke(self, key_prefix: str, **_):
        keys = list(GatewayKey.objects.filter(prefix__startswith=key_prefix, revoked_at__isnull=True))
        if not keys:
            raise CommandError(f"no live gateway key starts with {key_prefix!r}")
        if len(keys) > 1:
            raise CommandError(f"{len(keys)} keys start with {key_prefix!r}; give more of the prefix")
        keys[0].revoke()
        self.stdout.write(f"revoked key {keys[0].prefix}… of gateway {keys[0].gateway_id}")
