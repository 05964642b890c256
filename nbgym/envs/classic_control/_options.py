"""The reset-bounds option (`low`/`high`) shared by the classic-control environments."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym.envs.classic_control.utils import maybe_parse_reset_bounds


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
        low, high = maybe_parse_reset_bounds(options, *self._default_reset_bounds)
        if not math.isfinite(high - low):
            raise OverflowError("high - low range exceeds valid bounds")
        params = self._params.copy()
        params["_reset_low"], params["_reset_high"] = low, high
        return params
