from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    """The system of record. Its start-up wiring (the model-call recorder) is the site's
    (amem_site/apps.py): the data app imports nothing of the engine when Django starts."""

    name = "memories"
    verbose_name = "Memories"
    default_auto_field = "django.db.models.BigAutoField"
