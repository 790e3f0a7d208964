"""Search an agent's memories from the command line."""

from __future__ import annotations

import json

from engine.errors import IndexLocked
from engine.retrieval.search import search
from memories.local_api import result_dict
from memories.local_bridge import call_server
from memories.management.base import AmemCommand


class Command(AmemCommand):
    help = 'Search: amem_search --agent demo "query" [--limit 5] [--subject alex] [--json]'

    def add_arguments(self, parser):
        parser.add_argument("query")
        parser.add_argument("--agent", required=True)
        parser.add_argument("--limit", type=int, default=5)
        parser.add_argument("--subject", default=None)
        parser.add_argument("--json", action="store_true", help="one JSON object per result")

    def handle(self, *args, query, agent, limit, subject, **options):
        try:
            rows = [result_dict(r) for r in search(query, self.agent(agent), limit=limit, subject=subject)]
        except IndexLocked as locked:
            # The server owns the embedded index: ask it to run the same search.
            payload = {"agent": agent, "query": query, "limit": limit, "subject": subject}
            rows = call_server("search", payload, locked=locked)["results"]
        if not rows:
            self.stdout.write("no memories found")
        for row in rows:
            if options["json"]:
                self.stdout.write(json.dumps(row, ensure_ascii=False))
            else:
                self.stdout.write(f"{row['similarity']:5.2f}  {row['via']:5}  {row['id']}  {row['content']}")
