"""The vector version of :class:`nbgym.wrappers.JaxToTorch`."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import torch

from nbgym.vector import VectorEnv
from nbgym.wrappers.jax_to_torch import Device
from nbgym.wrappers.vector.array_conversion import ArrayConversion

__all__ = ["JaxToTorch"]


class JaxToTorch(ArrayConversion):
    """Lets a JAX-based vector environment be used with PyTorch tensors.

    Args:
        env: The JAX-based vector environment to wrap.
        device: The device the tensors are moved to (``None``: torch's default).
    """

    def __init__(self, env: VectorEnv[Any, Any, Any], device: Device | None = None) -> None:
        super().__init__(env, env_xp=jnp, target_xp=torch, target_device=device)
        self.device: Device | None = device
