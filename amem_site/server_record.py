"""Where the running server listens, recorded by the server itself for the commands to find.

gunicorn's workers write ``AMEM_DATA_DIR/server.json`` (the address and the master's pid) once
their socket is bound, so ``amem_search``, ``amem_add`` and ``amem_mcp`` reach a server started on any port
without ``AMEM_SERVER_URL``. A record whose process is gone is ignored. This module does not
import Django (settings read it).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

FILE = "server.json"


def write(data_dir: Path, host: str, port: int, pid: int) -> str:
    """Record where the server whose master is ``pid`` listens; its URL. Every web process writes
    the same record (``AMEM_WEB_PROCESSES``), each through a file of its own."""
    host = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    url = f"http://{host}:{port}"
    tmp = data_dir / f".{FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps({"url": url, "pid": pid}))
    tmp.replace(data_dir / FILE)
    return url


def remove(data_dir: Path) -> None:
    """Remove the record, in the server's master as it exits (the pid recorded is its own)."""
    path = data_dir / FILE
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()


def recorded_url(data_dir: Path) -> str | None:
    """The recorded server's URL if its process still runs, else None."""
    try:
        record = json.loads((data_dir / FILE).read_text())
        os.kill(int(record["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return str(record["url"])
