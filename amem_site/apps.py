from django.apps import AppConfig


class AmemSiteConfig(AppConfig):
    """The site's start-up: what every process of the service does once Django is set up."""

    name = "amem_site"
    verbose_name = "amem site"

    def ready(self) -> None:
        from amem_site import db_fork
        from amem_site.startup import check_configuration
        from engine import runtime
        from memories.llm_calls import record_llm_call

        # Every process forked from this one (django-q2's cluster) opens its own connections.
        db_fork.register()
        # A malformed variable (e.g. AMEM_LLM_TIMEOUT=soon) stops start-up, naming it, rather
        # than failing the first write that asks the model.
        check_configuration()
        # Every model call leaves an LlmCall row (the accounting lives with the models).
        runtime.set_llm_recorder(record_llm_call)
