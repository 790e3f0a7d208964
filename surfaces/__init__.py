"""The surfaces agents and admins use: the JSON API and the mem0-compatible router (api/), MCP over
stdio and HTTP, the management commands, the Django admin, and what they share (API keys of
gateways, slots for heavy requests, the CLI's bridge to a running server, the demo data).

Surfaces call the engine; the engine never imports a surface (the import contracts in
pyproject.toml). The review app (review/) is the people's surface, an app of its own."""
