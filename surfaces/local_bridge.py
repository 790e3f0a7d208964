"""Let management commands reach the index while the server owns it.

The embedded Qdrant shard is locked by the serving process. A command that
finds it locked sends its request to that server's local endpoints instead,
authenticated by a token file in the data dir: whoever can read that file can
read the database next to it anyway, so it grants nothing new.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import secrets
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings

from engine.errors import AmemError, IndexLocked

TOKEN_FILE = "local.token"


def token_path() -> Path:
    return Path(settings.AMEM_DATA_DIR) / TOKEN_FILE


def local_token() -> str:
    """The data dir's local token, created (mode 0600) on first use."""
    path = token_path()
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    # Written whole under a name of this process's own, then linked into place: with several web
    # processes (AMEM_WEB_PROCESSES) two may make it at once, and the one that comes second must
    # read the first one's token, whole, rather than fail or read an empty file.
    token = secrets.token_urlsafe(32)
    draft = path.with_name(f".{TOKEN_FILE}.{os.getpid()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token)
    try:
        os.link(draft, path)
    except FileExistsError:
        token = path.read_text().strip()
    finally:
        draft.unlink()
    return token


def token_matches(presented: str) -> bool:
    return hmac.compare_digest(presented.encode(), local_token().encode())


def served_here() -> bool:
    """Whether a server of this data dir may own the embedded index (no Qdrant server configured)."""
    return not settings.AMEM_QDRANT_URL and token_path().exists()


def try_server(endpoint: str, payload: dict) -> dict | None:
    """The running server's answer, or None when no server answers (the command then works locally).

    Commands ask the server first, before importing the engine: the server owns the embedded
    index (opened at start-up), and a forwarded call must not pay for loading the model.
    """
    if not served_here():
        return None
    try:
        return _post(endpoint, payload, timeout=60)
    except urllib.error.HTTPError as exc:
        if exc.code == 401:  # a server of another data dir (its token differs): not ours
            return None
        raise _refused(exc) from None
    except (urllib.error.URLError, OSError):
        return None


def _post(endpoint: str, payload: dict, *, timeout: float) -> dict:
    url = f"{settings.AMEM_SERVER_URL.rstrip('/')}/api/v1/local/{endpoint}"
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {local_token()}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def _refused(exc: urllib.error.HTTPError) -> AmemError:
    detail = exc.read().decode(errors="replace")
    with contextlib.suppress(ValueError):
        detail = json.loads(detail).get("detail", detail)
    return AmemError(f"the server refused: {detail}")


def call_server(endpoint: str, payload: dict, *, locked: IndexLocked) -> dict:
    """POST to the running server's local API; explain plainly when that is not possible."""
    try:
        return _post(endpoint, payload, timeout=60)
    except urllib.error.HTTPError as exc:
        raise _refused(exc) from None
    except (urllib.error.URLError, OSError):
        raise AmemError(
            f"{locked} No server answered at {settings.AMEM_SERVER_URL} either "
            "(set AMEM_SERVER_URL if it runs elsewhere)."
        ) from None
