"""What a log line may say about a request: its route, never a subject's name or a query's text.

The access log (gunicorn, ``RedactingAccessLogger``) and amem's own error lines write the
path through ``redact_path`` and the query string through ``redact_query``: a person's name
in ``DELETE /api/v1/subjects/<name>?purge=true`` or a search in ``?query=…`` would otherwise
outlive the erasure that removed them from the database (docs/deploy.md, "Erasure").
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit

from gunicorn.glogging import Logger

HIDDEN = "~"
# Path segments that are a person's or a subject's name (the route's own words stay).
_NAMED_SEGMENT = re.compile(r"(/api/v1/subjects/)[^/?#]+")
# Query parameters whose values are never personal: kept as they are. Any other value is hidden.
PLAIN_PARAMETERS = frozenset({"purge", "limit", "offset", "include", "deep", "page", "explain"})


def redact_path(path: str) -> str:
    return _NAMED_SEGMENT.sub(rf"\g<1>{HIDDEN}", path)


def redact_query(query: str) -> str:
    if not query:
        return ""
    pairs = parse_qsl(query, keep_blank_values=True)
    return urlencode([(k, v if k in PLAIN_PARAMETERS else HIDDEN) for k, v in pairs], safe=HIDDEN)


def redact_url(url: str) -> str:
    """A full URL (a Referer): its path and query redacted, scheme and host kept."""
    if url in ("", "-"):
        return url
    parts = urlsplit(url)
    query = redact_query(parts.query)
    return f"{parts.scheme}://{parts.netloc}{redact_path(parts.path)}" + (f"?{query}" if query else "")


class RedactingAccessLogger(Logger):
    """gunicorn's logger with the request line, path, query and referer redacted (gunicorn.conf.py)."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        path = redact_path(environ.get("PATH_INFO", ""))
        query = redact_query(environ.get("QUERY_STRING", ""))
        atoms["U"] = path
        atoms["q"] = query
        atoms["r"] = (
            f"{environ.get('REQUEST_METHOD', '-')} {path}{'?' + query if query else ''} {environ.get('SERVER_PROTOCOL', '-')}"
        )
        atoms["f"] = redact_url(atoms.get("f", "-"))
        return atoms
