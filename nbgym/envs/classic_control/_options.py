"""Parsing of the reset options shared by the classic-control environments."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


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


class ResetBoundsOption:
    """The ``low``/``high`` reset options of an initial state drawn by ``uniform(low, high)`` (CartPole's,
    the mountain cars' and Acrobot's), for the single and the vector env: the draw's range in the
    ``_reset_low`` and ``_reset_high`` parameters, with gymnasium's parsing and numpy's checks of the range.
    """

    _params: np.ndarray
    _default_reset_bounds: tuple[float, float]
    """The default ``(low, high)``."""

    def _reset_params(self, options: dict[str, Any] | None) -> np.ndarray:
        if options is None:
            return self._params
        low, high = reset_bounds(options, *self._default_reset_bounds)
        if not math.isfinite(high - low):
            raise OverflowError("high - low range exceeds valid bounds")
        params = self._params.copy()
        params["_reset_low"], params["_reset_high"] = low, high
        return params
