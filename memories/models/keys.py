"""Bearer keys: what an agent key (ApiKey) and a gateway key (GatewayKey) share.

Only a key's hash is stored; the raw key is shown once, when it is issued. A key is found by its
hash (constant-time by construction), and only while it is not revoked and its owner is active.
Each concrete key names its owner's foreign key in ``OWNER`` and the text its raw keys start with in
``RAW_START`` (so a person reading a config can tell the kinds apart).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any, ClassVar, Self, cast

from django.db import connections, models
from django.utils import timezone

from memories import raw_rows

# How stale ``last_used_at`` may get: the key's use is written at most once per this span, not on
# every request, where it was a write and a commit per request (docs/benchmarks.md, "Where the
# time goes").
USE_RECORD_EVERY = dt.timedelta(minutes=1)


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class BearerKey(models.Model):
    """The stored half of a bearer key: its hash, a short prefix to recognise it, its use and revocation."""

    PREFIX_LEN = 12
    OWNER: ClassVar[str]  # the owner's foreign key field, e.g. "agent"
    RAW_START: ClassVar[str]  # what a raw key of this kind starts with, e.g. "amem_"

    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=PREFIX_LEN, db_index=True, editable=False)
    hashed = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]

    @property
    def owner(self) -> Any:
        return getattr(self, self.OWNER)

    @property
    def owner_id(self) -> str:
        return getattr(self, f"{self.OWNER}_id")

    @classmethod
    def issue(cls, owner: models.Model, name: str = "") -> tuple[Self, str]:
        """Create a key; returns the row and the raw key (never stored)."""
        raw = cls.RAW_START + secrets.token_urlsafe(32)
        key = cls._default_manager.create(
            **{cls.OWNER: owner}, name=name, prefix=raw[: cls.PREFIX_LEN], hashed=hash_key(raw)
        )
        return key, raw

    @classmethod
    def authenticate(cls, raw: str) -> Self | None:
        """The live key matching ``raw`` whose owner is active, its owner loaded; records its use (to
        the minute). Read in plain SQL (memories/raw_rows.py): every request asks, and through the
        ORM the query's compiling cost more than the database's answer (docs/benchmarks.md, "Less
        Python a search")."""
        owner_field = cast(models.ForeignKey, cls._meta.get_field(cls.OWNER))
        owner_model = owner_field.related_model
        quote = connections["default"].ops.quote_name
        owners = (
            f"SELECT {quote(str(owner_model._meta.pk.column))} FROM {quote(owner_model._meta.db_table)} WHERE is_active"
        )
        found = raw_rows.instances(
            cls,
            None,
            f"hashed = %s AND revoked_at IS NULL AND {quote(str(owner_field.column))} IN ({owners})",
            [hash_key(raw)],
        )
        if not found:
            return None
        key = found[0]
        owner = raw_rows.instances(
            owner_model,
            None,
            f"{quote(str(owner_model._meta.pk.column))} = %s",
            [raw_rows.as_key(owner_model, key.owner_id)],
        )
        if not owner:  # the owner went between the two reads
            return None
        setattr(key, cls.OWNER, owner[0])
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at >= USE_RECORD_EVERY:
            cls._default_manager.filter(pk=key.pk).update(last_used_at=now)
            key.last_used_at = now
        return key

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])
