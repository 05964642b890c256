"""The vector version of :class:`nbgym.wrappers.JaxToNumpy`."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from nbgym.vector import VectorEnv
from nbgym.wrappers.vector.array_conversion import ArrayConversion

__all__ = ["JaxToNumpy"]


class JaxToNumpy(ArrayConversion):
    """Lets a JAX-based vector environment be used with numpy arrays.

    Args:
        env: The JAX-based vector environment to wrap.
    """

    def __init__(self, env: VectorEnv[Any, Any, Any]) -> None:
        super().__init__(env, env_xp=jnp, target_xp=np)
