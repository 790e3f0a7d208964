from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from amem_site.api import api, mem0_api, mem0_without_prefix, unknown_endpoint, unknown_mem0_call
from amem_site.health import healthz
from amem_site.metrics import metrics
from surfaces import mcp_http

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", unknown_endpoint),  # after the API's routes: JSON, not Django's HTML 404
    path("mem0/", mem0_api.urls),  # mem0's client: MemoryClient(host="http://…/mem0") (docs/api.md)
    re_path(r"^mem0/(?P<rest>.*)$", unknown_mem0_call),
    re_path(r"^(?P<rest>v[0-9]+/.*)$", mem0_without_prefix),  # mem0's client with host="http://…" alone
    path("mcp", mcp_http.endpoint, name="mcp"),  # remote MCP (Streamable HTTP), docs/api.md "MCP"
    path("healthz", healthz),
    path("metrics", metrics, name="metrics"),
    path("review/", include("review.urls")),
    path("", RedirectView.as_view(url="/review/", permanent=False)),
]
