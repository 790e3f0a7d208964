"""First-run setup for the demo: an admin user, a `demo` agent with a key, demo memories.

Safe to run twice: whatever exists is left alone and nothing is printed twice
except what is still true.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction

from engine.text import content_hash
from engine.write.pipeline import EpisodicItem, add_episodic_batch
from memories.demo import demo_items
from memories.management.base import AmemCommand
from memories.models import Agent, ApiKey, Note

DEMO_AGENT = "demo"


class Command(AmemCommand):
    help = "Create the admin user and the demo agent with its memories, if absent (prints new credentials)."

    def add_arguments(self, parser):
        parser.add_argument("--admin-user", default="admin")
        parser.add_argument("--admin-password", default="", help="default: a random one, printed once")
        parser.add_argument("--no-demo", action="store_true", help="skip the demo agent and memories")

    def handle(self, *args, admin_user, admin_password, no_demo, **options):
        self._admin(admin_user, admin_password)
        if not no_demo:
            self._demo()

    def _admin(self, username: str, password: str) -> None:
        User = get_user_model()
        if User.objects.filter(username=username).exists():
            self.stdout.write(f"admin user {username!r} exists (password unchanged)")
            return
        password = password or secrets.token_urlsafe(12)
        User.objects.create_superuser(username=username, email="", password=password)
        self.stdout.write(self.style.SUCCESS(f"admin user: {username}  password: {password}  (printed once)"))

    def _demo(self) -> None:
        with transaction.atomic():
            agent, created = Agent.objects.get_or_create(pk=DEMO_AGENT, defaults={"name": "Demo agent"})
            if created:
                _, raw = ApiKey.issue(agent, name="demo")
                self.stdout.write(self.style.SUCCESS(f"demo agent key: {raw}  (printed once)"))
            else:
                self.stdout.write("demo agent exists")
        existing = set(Note.objects.filter(agent_id=DEMO_AGENT).values_list("content_hash", flat=True))
        items = [
            EpisodicItem(d["text"], subjects=d.get("subjects", []), sources=[f"demo-{i}"])
            for i, d in enumerate(demo_items())
            if content_hash(d["text"]) not in existing
        ]
        add_episodic_batch(agent, items, actor="bootstrap")
        self.stdout.write(f"demo memories: {len(items)} added, {len(existing)} already present")
