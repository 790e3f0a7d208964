from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from amem_site.api import api, unknown_endpoint
from amem_site.health import healthz
from amem_site.metrics import metrics

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", unknown_endpoint),  # after the API's routes: JSON, not Django's HTML 404
    path("healthz", healthz),
    path("metrics", metrics, name="metrics"),
    path("review/", include("review.urls")),
    path("", RedirectView.as_view(url="/review/", permanent=False)),
]
