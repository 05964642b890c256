"""Conversion between JAX and PyTorch: :class:`JaxToTorch` and the functions ``jax_to_torch``/``torch_to_jax``."""

from __future__ import annotations

import functools
from typing import Any

from nbgym.core import Env
from nbgym.error import DependencyNotInstalled
from nbgym.utils import RecordConstructorArgs
from nbgym.wrappers.array_conversion import ArrayConversion, array_conversion, module_namespace

try:
    import jax.numpy as jnp
except ImportError as e:
    raise DependencyNotInstalled(
        "Jax is not installed therefore cannot call `torch_to_jax`, run `pip install jax`"
    ) from e
try:
    import torch
except ImportError as e:
    raise DependencyNotInstalled(
        "Torch is not installed therefore cannot call `torch_to_jax`, run `pip install torch`"
    ) from e

__all__ = ["JaxToTorch", "jax_to_torch", "torch_to_jax", "Device"]

Device = str | torch.device

torch_to_jax = functools.partial(array_conversion, xp=module_namespace(jnp))
"""Converts tensors (in any container) to JAX arrays, through DLPack."""

jax_to_torch = functools.partial(array_conversion, xp=module_namespace(torch))
"""Converts JAX arrays (in any container) to tensors (``device=`` to move them), through DLPack."""


class JaxToTorch(ArrayConversion):
    """Lets a JAX-based environment be used with PyTorch tensors: tensor actions in, tensor observations out.

    A vector version exists: :class:`nbgym.wrappers.vector.JaxToTorch`.

    Args:
        env: The JAX-based environment to wrap.
        device: The device the tensors are moved to (``None``: torch's default).
    """

    def __init__(self, env: Env[Any, Any], device: Device | None = None) -> None:
        RecordConstructorArgs.__init__(self, device=device)
        super().__init__(env=env, env_xp=jnp, target_xp=torch, target_device=device)
        self.device: Device | None = device
