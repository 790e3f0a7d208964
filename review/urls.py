"""Review app routes, mounted at /review/ (amem_site/urls.py)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from review.views import bulk, core_memory, decisions, erase, posts, queues, screens

app_name = "review"

urlpatterns = [
    path("", screens.dashboard, name="dashboard"),
    path("login/", auth_views.LoginView.as_view(template_name="review/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="review:login"), name="logout"),
    path("agents/<str:agent_id>/notes/", screens.browser, name="browser"),
    path("notes/<uuid:note_id>/", screens.note_detail, name="note"),
    path("notes/<uuid:note_id>/graph/", screens.graph, name="graph"),
    path("notes/<uuid:note_id>/edit/", posts.edit, name="edit"),
    path("notes/<uuid:note_id>/retire/", posts.retire, name="retire"),
    path("notes/<uuid:note_id>/restore/", posts.restore, name="restore"),
    path("notes/<uuid:note_id>/erase/", erase.erase_note, name="erase"),
    path("notes/<uuid:note_id>/keep/", posts.keep_quality, name="keep"),
    path("events/<int:event_id>/undo/", posts.undo, name="undo"),
    path("runs/<int:run_id>/", screens.run_detail, name="run"),
    path("queues/counts/", queues.badges, name="counts"),
    path("queues/merges/", queues.merges, name="merges"),
    path("queues/conflicts/", queues.conflicts, name="conflicts"),
    path("queues/quality/", queues.quality, name="quality"),
    path("queues/<str:queue>/bulk/", bulk.bulk, name="bulk"),
    path("queues/cards/<str:kind>/<str:key>/", queues.card, name="card"),
    path("pairs/<int:pair_id>/<str:decision>/", decisions.pair, name="pair"),
    path("agents/<str:agent_id>/core/", core_memory.page, name="core"),
    path("core/<int:block_id>/edit/", core_memory.edit, name="core-edit"),
    path("core/events/<int:event_id>/undo/", core_memory.undo, name="core-undo"),
]
