"""Parsing of the classic-control environments' reset options, as ``gymnasium.envs.classic_control.utils``."""

from __future__ import annotations

from typing import Any, SupportsFloat

__all__ = ["maybe_parse_reset_bounds", "verify_number_and_cast"]


def verify_number_and_cast(x: SupportsFloat) -> float:
    """``x`` as a float.

    Args:
        x: A reset option that should be one number.

    Returns:
        ``float(x)``.

    Raises:
        ValueError: If ``x`` is not a number.
    """
    try:
        return float(x)
    except (ValueError, TypeError) as e:
        raise ValueError(f"An option ({x}) could not be converted to a float.") from e


def maybe_parse_reset_bounds(
    options: dict[str, Any] | None, default_low: float, default_high: float
) -> tuple[float, float]:
    """The ``(low, high)`` range of a reset's initial-state draw: ``options["low"]``/``["high"]`` or the defaults.

    Args:
        options: The options given to ``reset()``.
        default_low: The lower bound when ``options`` has no ``"low"``.
        default_high: The upper bound when ``options`` has no ``"high"``.

    Returns:
        The lower and upper bounds, as floats.

    Raises:
        ValueError: If a bound is not a number, or ``low > high``.
    """
    if options is None:
        return default_low, default_high
    low = verify_number_and_cast(options["low"] if "low" in options else default_low)
    high = verify_number_and_cast(options["high"] if "high" in options else default_high)
    if low > high:
        raise ValueError(f"Lower bound ({low}) must be lower than higher bound ({high}).")
    return low, high
