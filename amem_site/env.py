"""Strict readers for environment variables.

Only ``amem_site/settings.py`` calls these. Every helper fails with
``ImproperlyConfigured`` naming the variable, so a malformed value stops the
process at start-up with one clear line instead of misbehaving later.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The variable's value, or None when unset or blank (blank counts as unset)."""
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
