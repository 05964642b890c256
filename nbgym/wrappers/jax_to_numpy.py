"""Conversion between JAX and numpy: :class:`JaxToNumpy` and the functions ``jax_to_numpy``/``numpy_to_jax``."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from nbgym.core import Env
from nbgym.error import DependencyNotInstalled
from nbgym.utils import RecordConstructorArgs
from nbgym.wrappers.array_conversion import ArrayConversion, array_conversion, module_namespace

try:
    import jax.numpy as jnp
except ImportError as e:
    raise DependencyNotInstalled(
        "Jax is not installed therefore cannot call `numpy_to_jax`, run `pip install jax`"
    ) from e

__all__ = ["JaxToNumpy", "jax_to_numpy", "numpy_to_jax"]

jax_to_numpy = functools.partial(array_conversion, xp=module_namespace(np))
"""Converts JAX arrays (in any container) to numpy arrays."""

numpy_to_jax = functools.partial(array_conversion, xp=module_namespace(jnp))
"""Converts numpy arrays (in any container) to JAX arrays."""


class JaxToNumpy(ArrayConversion):
    """Lets a JAX-based environment be used with numpy arrays: numpy actions in, numpy observations out.

    The conversion does not round-trip exactly: JAX has no scalars, so a numpy ``int32(5)`` comes
    back as a 0-d JAX array. A vector version exists: :class:`nbgym.wrappers.vector.JaxToNumpy`.

    Args:
        env: The JAX-based environment to wrap.
    """

    def __init__(self, env: Env[Any, Any]) -> None:
        RecordConstructorArgs.__init__(self)
        super().__init__(env=env, env_xp=jnp, target_xp=np)
