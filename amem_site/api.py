"""The JSON API root (django-ninja): /api/v1/."""

from __future__ import annotations

from ninja import NinjaAPI

api = NinjaAPI(title="amem", version="1", urls_namespace="api-v1", docs_url="/docs")
