"""Gateways: one key that acts for many agents, each agent under an id prefix the gateway owns.

An agent runtime with several agents of its own (an OpenClaw gateway) holds one gateway key
instead of one key per agent. Each request names the agent it acts for (the ``X-Amem-Agent``
header); the agent is created on first use and remembered as the gateway's, so the gateway can
never reach an agent it did not create, and no other key holder can take over the gateway's
prefix. The rules that use these rows live in surfaces/gateways.py.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

from memories.models.keys import BearerKey
from memories.models.notes import Agent

# Ends with "-" so that "openclaw-home-" owns "openclaw-home-main" and never "openclaw-homework".
GATEWAY_PREFIX = RegexValidator(
    r"^[a-z0-9][a-z0-9_-]{0,46}-$",
    "A gateway prefix is 2–48 lower-case letters, digits, '-' or '_', starting with a letter or digit "
    "and ending with '-' (e.g. openclaw-home-).",
)


class Gateway(models.Model):
    """A key holder allowed to act for the agents whose id starts with ``prefix``."""

    prefix = models.CharField(primary_key=True, max_length=48, validators=[GATEWAY_PREFIX])
    name = models.CharField(max_length=200, blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["prefix"]

    def __str__(self) -> str:
        return self.prefix

    def clean(self) -> None:
        # Two gateways whose prefixes nest would both claim the longer one's agents.
        for other in Gateway.objects.exclude(pk=self.pk).values_list("prefix", flat=True):
            if other.startswith(self.prefix) or self.prefix.startswith(other):
                raise ValidationError({"prefix": f"overlaps the prefix of gateway {other!r}"})
        taken = Agent.objects.filter(pk__startswith=self.prefix).exclude(gateway_link__gateway_id=self.pk)
        if taken.exists():
            raise ValidationError(
                {"prefix": f"agent {taken.first().pk!r} already has this prefix and is not the gateway's"}  # type: ignore[union-attr]
            )


class GatewayKey(BearerKey):
    """A bearer key of a gateway (memories/models/keys.py)."""

    OWNER = "gateway"
    RAW_START = "amem_gw_"  # a person reading a config can tell a gateway key from an agent key

    gateway = models.ForeignKey(Gateway, on_delete=models.CASCADE, related_name="keys")

    class Meta(BearerKey.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.prefix}… (gateway {self.gateway_id})"


class GatewayAgent(models.Model):
    """An agent a gateway created on first use: the only agents its key may act for."""

    agent = models.OneToOneField(Agent, primary_key=True, on_delete=models.CASCADE, related_name="gateway_link")
    gateway = models.ForeignKey(Gateway, on_delete=models.PROTECT, related_name="agents")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["agent_id"]

    def __str__(self) -> str:
        return f"{self.agent_id} (gateway {self.gateway_id})"
