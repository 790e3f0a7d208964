from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from engine import runtime
        from memories.llm_calls import record_llm_call

        # Every model call leaves an LlmCall row (the accounting lives with the models).
        runtime.set_llm_recorder(record_llm_call)
