"""Strict readers for environment variables.

Only ``amem_site/settings.py`` calls these. Every helper fails with
``ImproperlyConfigured`` naming the variable, so a malformed value stops the
process at start-up with one clear line instead of misbehaving later.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


# Every name a helper was asked for: what is left of the AMEM_* variables is unknown (warn_unknown).
READ: set[str] = set()


def _raw(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The variable's value, or None when unset or blank (blank counts as unset)."""
    READ.add(name)
    value = (environ if environ is not None else os.environ).get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def env_str(name: str, default: str = "") -> str:
    value = _raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use true/false, 1/0, yes/no, on/off)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} must be at least {minimum}")
    return number


def env_float(name: str, default: float, *, low: float | None = None, high: float | None = None) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number") from None
    if (low is not None and number < low) or (high is not None and number > high):
        raise ImproperlyConfigured(f"{name}={number} must lie between {low} and {high}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} must be one of: {', '.join(choices)}")
    return value.lower()


def env_prefixed(prefix: str, extra: tuple[str, ...] = ()) -> dict[str, str]:
    """Raw values of every variable starting with ``prefix`` plus the ``extra`` names.

    Used for the LLM layer, whose precedence rules (env > settings > defaults)
    are resolved by the engine itself from these raw values.
    """
    return {key: value for key, value in os.environ.items() if key.startswith(prefix) or key in extra}


def env_prices(name: str, tiers: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    """``fast=0.25/1.25,strong=3/15``: per tier, US dollars per million input/output tokens."""
    value = _raw(name)
    prices: dict[str, tuple[float, float]] = {}
    for item in (value or "").split(","):
        if not item.strip():
            continue
        tier, _, pair = item.partition("=")
        price_in, _, price_out = pair.partition("/")
        try:
            numbers = (float(price_in), float(price_out))
        except ValueError:
            numbers = (-1.0, -1.0)
        if tier.strip() not in tiers or min(numbers) < 0:
            raise ImproperlyConfigured(
                f"{name}={value!r}: write each tier as TIER=IN/OUT dollars per million tokens, "
                f"e.g. fast=0.25/1.25,strong=3/15 (tiers: {', '.join(tiers)})"
            )
        prices[tier.strip()] = numbers
    return prices


def env_url(name: str, default: str, schemes: tuple[str, ...]) -> str:
    """A URL with one of ``schemes`` and a host (or, for ``unix``, a path): checked, not just read."""
    value = _raw(name)
    if value is None:
        return default
    problem = url_problem(value, schemes)
    if problem:
        raise ImproperlyConfigured(f"{name}={value!r} is not a URL: {problem}")
    return value


def url_problem(value: str, schemes: tuple[str, ...]) -> str:
    """What is wrong with ``value`` as a URL of one of ``schemes`` ("" when nothing is)."""
    shown = ", ".join(f"{s}://" for s in schemes)
    try:
        parts = urlsplit(value)
        port = parts.port  # raises on a port that is not a number or out of range
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in schemes:
        return f"it must start with {shown}"
    if parts.scheme == "unix":
        return "" if parts.path else "a unix:// URL needs a socket path"
    if not parts.hostname or any(c.isspace() for c in value):
        return "it has no host"
    del port
    return ""


def env_timezone(name: str, default: str) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    value = env_str(name, default)
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a time zone (an IANA name like UTC or Europe/Berlin)"
        ) from None
    return value


def env_folder(name: str, default: Path) -> Path:
    """A folder this process can create and write into (created later, by whoever needs it)."""
    value = _raw(name)
    path = (Path(value).expanduser() if value is not None else default).resolve()
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ImproperlyConfigured(f"{name}={str(path)!r} cannot be a folder: {str(existing)!r} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ImproperlyConfigured(f"{name}={str(path)!r} is not writable by this process")
    return path


# Read outside settings.py: by gunicorn.conf.py (the server's own settings) and by the engine's
# index layer (which may not import Django); settings.py checks them too. Tests and benchmarks
# read their own AMEM_TEST_* / AMEM_BENCH_* variables.
READ_ELSEWHERE = ("AMEM_BIND", "AMEM_THREADS", "AMEM_WEB_PROCESSES", "AMEM_WORKER_TIMEOUT", "AMEM_ACCESS_LOG")
OWN_PREFIXES = ("AMEM_LLM_", "AMEM_TEST_", "AMEM_BENCH_")
# The developers' own switches (Makefile, tests/, tools/, one benchmark): not settings, not typos.
DEVELOPER = (
    "AMEM_PYTHON",
    "AMEM_LOCAL_MODEL_TESTS",
    "AMEM_LOCAL_LLM_HOME",
    "AMEM_REVIEW_MEASURE",
    "AMEM_FUZZ_EXAMPLES",
)
_warned: set[str] = set()


def warn_unknown(known: Iterable[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """Say once per process, on stderr, which AMEM_* variables amem does not read (a typo, most often)."""
    names = set(known) | READ | set(READ_ELSEWHERE) | set(DEVELOPER)
    unknown = sorted(
        key
        for key in (environ if environ is not None else os.environ)
        if key.startswith("AMEM_") and key not in names and not key.startswith(OWN_PREFIXES)
    )
    for key in unknown:
        if key not in _warned:
            _warned.add(key)
            print(f"amem: warning: {key} is not a setting amem reads (docs/configuration.md); ignored", file=sys.stderr)
    return unknown
