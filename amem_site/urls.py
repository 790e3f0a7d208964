from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from amem_site.api import api
from amem_site.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("healthz", healthz),
    path("review/", include("review.urls")),
    path("", RedirectView.as_view(url="/review/", permanent=False)),
]
