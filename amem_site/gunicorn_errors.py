"""gunicorn's own error answers as JSON, like every other error of the API.

gunicorn refuses some requests before Django sees them: a request line over its limit (414),
headers over theirs (431), a malformed request (400). It writes those as a small HTML page
(``gunicorn.util.write_error``); ``install`` swaps in the same answer as
``{"detail": "…"}`` with ``Content-Type: application/json``. Called from gunicorn.conf.py in
the worker process, before it serves.
"""

from __future__ import annotations

import json

from gunicorn import util


def write_json_error(sock, status_int: int, reason: str, mesg: str) -> None:
    body = json.dumps({"detail": f"{reason}: {mesg}" if mesg else reason}).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1")
    util.write_nonblock(sock, head + body)


def install() -> None:
    util.write_error = write_json_error
