"""First-run setup for the demo: an admin user, a `demo` agent with a key, demo memories, and one
example in each review queue.

Safe to run twice: whatever exists is left alone and nothing is printed twice
except what is still true.
"""

from __future__ import annotations

import secrets
from collections import Counter

from django.contrib.auth import get_user_model
from django.db import transaction

from engine.write.pipeline import add_memory
from memories.models import Agent, ApiKey, Note
from surfaces.demo import demo_items, queues
from surfaces.management.base import AmemCommand

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
        # Each demo memory remembers where it came from (demo-<n>), so a second run adds nothing.
        present = {
            source
            for sources in Note.objects.filter(agent_id=DEMO_AGENT).values_list("sources", flat=True)
            for source in sources or []
        }
        todo = [(i, d) for i, d in enumerate(demo_items()) if f"demo-{i}" not in present]
        # The full write path, so the demo notes show what construction gives a note
        # (keywords, tags, context, category, links) — offline rules when no LLM is configured.
        outcomes: Counter[str] = Counter()
        for i, d in todo:
            result = add_memory(
                d["text"], agent, subjects=d.get("subjects", []), sources=[f"demo-{i}"], actor="bootstrap"
            )
            outcomes[result.outcome] += 1
        summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items())) or "0 added"
        self.stdout.write(f"demo memories: {summary}, {len(demo_items()) - len(todo)} already present")
        # One card in each review queue, so /review/ shows what it is for (surfaces/demo/queues.py).
        made = queues.add_examples(agent, present)
        if made:
            self.stdout.write(f"review examples: {'; '.join(made)} — decide them at /review/")
