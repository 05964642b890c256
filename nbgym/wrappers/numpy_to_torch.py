"""Conversion between numpy and PyTorch: :class:`NumpyToTorch` and the functions ``numpy_to_torch``/``torch_to_numpy``."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from nbgym.core import Env
from nbgym.error import DependencyNotInstalled
from nbgym.utils import RecordConstructorArgs
from nbgym.wrappers.array_conversion import ArrayConversion, array_conversion, module_namespace

try:
    import torch
except ImportError as e:
    raise DependencyNotInstalled(
        "Torch is not installed therefore cannot call `torch_to_numpy`, run `pip install torch`"
    ) from e

__all__ = ["NumpyToTorch", "torch_to_numpy", "numpy_to_torch", "Device"]

Device = str | torch.device

torch_to_numpy = functools.partial(array_conversion, xp=module_namespace(np))
"""Converts tensors (in any container) to numpy arrays, sharing CPU memory."""

numpy_to_torch = functools.partial(array_conversion, xp=module_namespace(torch))
"""Converts numpy arrays (in any container) to tensors (``device=`` to move them), sharing CPU memory."""


class NumpyToTorch(ArrayConversion):
    """Lets a numpy-based environment be used with PyTorch tensors: tensor actions in, tensor observations out.

    Observations and infos become tensors on ``device`` (without a copy on the CPU: the tensor shares
    the observation's memory), rewards floats and flags bools; rendered frames become tensors too.
    A vector version exists: :class:`nbgym.wrappers.vector.NumpyToTorch`.

    Example:
        >>> import torch, nbgym
        >>> env = NumpyToTorch(nbgym.make("CartPole-v1"))
        >>> obs, _ = env.reset(seed=123)
        >>> type(obs)
        <class 'torch.Tensor'>
        >>> obs, reward, terminated, truncated, info = env.step(torch.tensor(env.action_space.sample()))
        >>> type(obs), type(reward), type(terminated)
        (<class 'torch.Tensor'>, <class 'float'>, <class 'bool'>)

    Args:
        env: The numpy-based environment to wrap.
        device: The device the tensors are moved to (``None``: torch's default).
    """

    def __init__(self, env: Env[Any, Any], device: Device | None = None) -> None:
        RecordConstructorArgs.__init__(self, device=device)
        super().__init__(env=env, env_xp=np, target_xp=torch, target_device=device)
        self.device: Device | None = device
