"""Search an agent's memories from the command line."""

from __future__ import annotations

import json

from engine.retrieval import search
from memories.management.base import AmemCommand


class Command(AmemCommand):
    help = "Search: amem_search --agent demo \"query\" [--limit 5] [--subject alex] [--json]"

    def add_arguments(self, parser):
        parser.add_argument("query")
        parser.add_argument("--agent", required=True)
        parser.add_argument("--limit", type=int, default=5)
        parser.add_argument("--subject", default=None)
        parser.add_argument("--json", action="store_true", help="one JSON object per result")

    def handle(self, *args, query, agent, limit, subject, **options):
        results = search(query, self.agent(agent), limit=limit, subject=subject)
        if not results:
            self.stdout.write("no memories found")
        for r in results:
            if options["json"]:
                self.stdout.write(_json_line(r))
            else:
                self.stdout.write(f"{r.similarity:5.2f}  {r.via:5}  {r.note.pk}  {r.note.content}")


def _json_line(r) -> str:
    return json.dumps(
        {"id": str(r.note.pk), "content": r.note.content, "via": r.via, "similarity": r.similarity, "rrf": r.rrf},
        ensure_ascii=False,
    )
