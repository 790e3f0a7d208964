"""Create, list and revoke gateways: one key acting for many agents under an id prefix."""

from __future__ import annotations

from django.core.management.base import CommandError

from memories.models import Gateway, GatewayKey
from surfaces.management.base import KeyOwnerCommand


class Command(KeyOwnerCommand):
    key_model = GatewayKey
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

    def describe(self, gateway: Gateway) -> str:
        return f"gateway: {gateway.pk} (acts for agents {gateway.pk}<name>, created on first use)"

    def _create(self, prefix: str, name: str, **_):
        if Gateway.objects.filter(pk=prefix).exists():
            raise CommandError(f"gateway {prefix!r} already exists (use `amem_gateway key {prefix}` for a new key)")
        self.create_with_key(Gateway(prefix=prefix, name=name), name)

    def _key(self, prefix: str, name: str, **_):
        gateway = Gateway.objects.filter(pk=prefix).first()
        if gateway is None:
            raise CommandError(f"no gateway {prefix!r}")
        self.issue_key(gateway, name)

    def _list(self, **_):
        for gateway in Gateway.objects.prefetch_related("keys", "agents"):
            state = "active" if gateway.is_active else "inactive"
            agents = ", ".join(a.agent_id for a in gateway.agents.all()) or "no agents yet"
            self.stdout.write(f"{gateway.pk}\t{state}\t{agents}")
            self.write_keys(gateway.keys.all())

    def _revoke(self, key_prefix: str, **_):
        key = self.revoke_key(key_prefix, kind="gateway key")
        self.stdout.write(f"revoked key {key.prefix}… of gateway {key.owner_id}")
