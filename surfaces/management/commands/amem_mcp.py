"""MCP server over stdio: `manage.py amem_mcp`, configured by the MCP host's environment.

The host sets AMEM_API_KEY (the agent's key) and, if the server is not on
127.0.0.1:8000, AMEM_SERVER_URL. Stdout carries the protocol, so everything
this command says goes to stderr.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from surfaces.mcp_server import AmemApi, BadServerUrl, build_server, server_origin


class Command(BaseCommand):
    help = "Serve amem's memory tools to an MCP host over stdio (needs AMEM_API_KEY; forwards to AMEM_SERVER_URL)."

    def handle(self, *args, **options):
        if not settings.AMEM_API_KEY:
            raise CommandError("set AMEM_API_KEY to the agent's key (`manage.py amem_agent key AGENT` makes one)")
        try:
            origin = server_origin(settings.AMEM_SERVER_URL, allow_remote=settings.AMEM_MCP_ALLOW_REMOTE)
        except BadServerUrl as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(f"amem MCP server: tools forward to {origin}/api/v1/")
        build_server(AmemApi(origin, settings.AMEM_API_KEY)).run("stdio")
