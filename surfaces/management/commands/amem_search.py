"""Search an agent's memories from the command line."""

from __future__ import annotations

import json

from engine.errors import IndexLocked
from surfaces.local_bridge import call_server, try_server
from surfaces.management.base import AmemCommand


class Command(AmemCommand):
    # Skip the URL and model checks (they import every view and the engine): a forwarded call
    # should cost an HTTP round trip, not the project's import time. `manage.py check` runs them.
    requires_system_checks: list[str] = []
    help = 'Search: amem_search --agent demo "query" [--limit 5] [--subject alex] [--json]'

    def add_arguments(self, parser):
        parser.add_argument("query")
        parser.add_argument("--agent", required=True)
        parser.add_argument("--limit", type=int, default=5)
        parser.add_argument("--subject", default=None)
        parser.add_argument("--json", action="store_true", help="one JSON object per result")

    def handle(self, *args, query, agent, limit, subject, **options):
        payload = {"agent": agent, "query": query, "limit": limit, "subject": subject}
        # The server owns the embedded index: ask it first, before importing the engine (the model).
        answer = try_server("search", payload)
        rows = answer["results"] if answer is not None else self._search_here(payload)
        if not rows:
            self.stdout.write("no memories found")
        elif not options["json"]:
            # The rank follows the fused score; the cosine alone can run out of order beside it
            # (a note BM25 finds ranks above a closer vector), so both are shown and named.
            self.stdout.write("score  cosine  via    id                                    content")
        for row in rows:
            if options["json"]:
                self.stdout.write(json.dumps(row, ensure_ascii=False))
            else:
                self.stdout.write(
                    f"{row['score']:5.2f}  {row['similarity']:6.2f}  {row['via']:5}  {row['id']}  {row['content']}"
                )

    def _search_here(self, payload: dict) -> list[dict]:
        from engine.retrieval.search import search  # imported here: loading it loads the model's stack
        from surfaces.api.schemas import SearchOut, search_answer

        try:
            results = search(
                payload["query"], self.agent(payload["agent"]), limit=payload["limit"], subject=payload["subject"]
            )
            return SearchOut.model_validate(search_answer(results)).model_dump(mode="json", exclude_none=True)[
                "results"
            ]
        except IndexLocked as locked:
            return call_server("search", payload, locked=locked)["results"]
