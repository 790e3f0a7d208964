"""The configuration check every process makes before it does anything: web, worker, commands.

``check_configuration`` loads settings.py (every variable, strictly: one line naming it) and
resolves the LLM configuration from them. manage.py runs it through Django's start-up
(amem_site/apps.py) and prints the line with exit 2; gunicorn.conf.py runs it in the master,
before any worker forks, so a bad value never gets as far as gunicorn's own "worker failed
to boot" (exit 3) and its traceback.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured


def check_configuration() -> None:
    from django.conf import settings

    from engine.llm.config import resolve_llm_config

    settings.AMEM_DATA_DIR  # noqa: B018 - loads settings.py, which checks every variable it reads
    try:
        resolve_llm_config(settings.AMEM_LLM_ENV, settings.AMEM_LLM)
    except ValueError as exc:
        raise ImproperlyConfigured(str(exc)) from None
