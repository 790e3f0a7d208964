"""The web server's own variables (AMEM_BIND, AMEM_THREADS, AMEM_WEB_PROCESSES, AMEM_WORKER_TIMEOUT, AMEM_ACCESS_LOG, AMEM_LOG_LEVEL).

gunicorn.conf.py reads them; settings.py checks them too, so the worker and every command
refuse the same values the server would (one rule, one place). Each problem is one line naming
the variable (ImproperlyConfigured), never gunicorn's own message or a traceback.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from amem_site.env import env_choice, env_int, env_str

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


@dataclass(frozen=True)
class ServerSettings:
    bind: str
    threads: int
    processes: int
    timeout: int
    access_log: str | None
    log_level: str


def _bind(value: str) -> str:
    if value.startswith("unix:"):
        if not value[5:]:
            raise ImproperlyConfigured("AMEM_BIND='unix:' needs a socket path (unix:/run/amem.sock)")
        return value
    match = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]*):(\d{1,5})", value)
    if match is None or int(match.group(2)) > 65535:
        raise ImproperlyConfigured(f"AMEM_BIND={value!r} is not HOST:PORT (127.0.0.1:8000) or unix:PATH")
    return value


def _access_log(value: str) -> str | None:
    if value == "":
        return None  # blank: off (docs/configuration.md)
    if value == "-":
        return value
    folder = Path(value).expanduser().resolve().parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise ImproperlyConfigured(
            f"AMEM_ACCESS_LOG={value!r}: the folder {str(folder)!r} does not exist or is not writable"
        )
    if Path(value).is_dir():
        raise ImproperlyConfigured(f"AMEM_ACCESS_LOG={value!r} is a folder, not a file")
    return value


def check_server_settings() -> ServerSettings:
    return ServerSettings(
        bind=_bind(env_str("AMEM_BIND", "127.0.0.1:8000")),
        threads=env_int("AMEM_THREADS", 8, minimum=1),
        # Web processes; above 1 the embedded index is served by a process of its own (docs/deploy.md).
        processes=env_int("AMEM_WEB_PROCESSES", 1, minimum=1),
        # A worker process silent this long is restarted: a liveness check (docs/deploy.md).
        timeout=env_int("AMEM_WORKER_TIMEOUT", 180, minimum=1),
        # Not env_str: blank is meaningful here (off), unset is stdout.
        access_log=_access_log(os.environ.get("AMEM_ACCESS_LOG", "-").strip()),
        log_level=env_choice("AMEM_LOG_LEVEL", "info", LOG_LEVELS),
    )
