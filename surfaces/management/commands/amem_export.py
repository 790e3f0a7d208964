"""Export agents' memories losslessly as JSONL (notes, links, history, access fields)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from engine.transfer.portable import export_lines
from memories import ids
from memories.models import Agent
from surfaces.management.base import AmemCommand


class Command(AmemCommand):
    help = (
        "Export: amem_export --agent demo [--out demo.jsonl] | amem_export --all --out-dir exports/. "
        "Restore with amem_import FILE."
    )

    def add_arguments(self, parser):
        parser.add_argument("--agent", help="one agent (active or not)")
        parser.add_argument("--out", help="file for one agent's export (default: stdout)")
        parser.add_argument("--all", action="store_true", help="every agent, one file each, into --out-dir")
        parser.add_argument("--out-dir", help="folder for --all")

    def handle(self, *args, agent, out, all, out_dir, **options):
        if all == bool(agent):
            raise CommandError("give either --agent or --all")
        if all:
            if not out_dir:
                raise CommandError("--all needs --out-dir")
            folder = Path(out_dir)
            folder.mkdir(parents=True, exist_ok=True)
            for each in Agent.objects.order_by("pk"):
                # The file name is the agent id, checked again here: it must name a file in the folder.
                try:
                    path = ids.file_in(folder, each.pk, ".jsonl")
                except ids.InvalidId as exc:
                    raise CommandError(f"not exported: {exc}") from None
                self._write(each, path)
            return
        found = Agent.objects.filter(pk=ids.check_agent_id(agent)).first()  # retired agents can be exported too
        if found is None:
            raise CommandError(f"no agent {agent!r}")
        if out:
            self._write(found, Path(out))
        else:
            for line in export_lines(found):
                self.stdout.write(line)

    def _write(self, agent: Agent, path: Path) -> None:
        count = 0
        with path.open("w", encoding="utf-8") as handle:
            for line in export_lines(agent):
                handle.write(line + "\n")
                count += 1
        self.stderr.write(f"{agent.pk}: {count - 1} line(s) → {path}")
