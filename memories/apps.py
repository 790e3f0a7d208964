from django.apps import AppConfig
from django.core.exceptions import ImproperlyConfigured


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings

        from amem_site import db_fork

        # Every process forked from this one (django-q2's cluster) opens its own connections.
        db_fork.register()

        from engine import runtime
        from engine.llm.config import resolve_llm_config
        from memories.llm_calls import record_llm_call

        # A malformed LLM variable (e.g. AMEM_LLM_TIMEOUT=soon) stops start-up, naming it,
        # rather than failing the first write that asks the model.
        try:
            resolve_llm_config(settings.AMEM_LLM_ENV, settings.AMEM_LLM)
        except ValueError as exc:
            raise ImproperlyConfigured(str(exc)) from None
        # Every model call leaves an LlmCall row (the accounting lives with the models).
        runtime.set_llm_recorder(record_llm_call)
