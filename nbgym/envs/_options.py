"""Parsing of the reset options shared by the classic-control environments."""

from __future__ import annotations

from typing import Any


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (ValueError, TypeError) as e:
        raise ValueError(f"An option ({value}) could not be converted to a float.") from e


def reset_bounds(options: dict[str, Any] | None, default_low: float, default_high: float) -> tuple[float, float]:
    """The ``(low, high)`` range of a reset's initial-state draw: ``options["low"]``/``["high"]`` or the defaults.

    Raises:
        ValueError: If a bound is not a number, or ``low > high``.
    """
    if options is None:
        return default_low, default_high
    low = _as_float(options["low"] if "low" in options else default_low)
    high = _as_float(options["high"] if "high" in options else default_high)
    if low > high:
        raise ValueError(f"Lower bound ({low}) must be lower than higher bound ({high}).")
    return low, high
