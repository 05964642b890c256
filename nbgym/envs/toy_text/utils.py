"""Sampling helper of the toy-text environments, as ``gymnasium.envs.toy_text.utils``.

nbgym's toy-text kernels draw the same way inside their compiled steps (``nbgym.envs.toy_text._common``);
this is the Python function for code written against gymnasium's module.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["categorical_sample"]


def categorical_sample(prob_n: npt.ArrayLike, np_random: np.random.Generator) -> Any:
    """Samples an index of a categorical distribution with one ``random()`` draw of ``np_random``.

    Args:
        prob_n: The probability of each index.
        np_random: The generator to draw from.

    Returns:
        The first index whose cumulative probability exceeds the draw (a numpy integer; index 0 when none does).
    """
    cumulative = np.cumsum(np.asarray(prob_n))
    return np.argmax(cumulative > np_random.random())
