from django.contrib import admin
from django.urls import path

from amem_site.api import api
from amem_site.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("healthz", healthz),
]
