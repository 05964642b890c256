"""The vector version of :class:`nbgym.wrappers.NumpyToTorch`."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from nbgym.vector import VectorEnv
from nbgym.wrappers.numpy_to_torch import Device
from nbgym.wrappers.vector.array_conversion import ArrayConversion

__all__ = ["NumpyToTorch"]


class NumpyToTorch(ArrayConversion):
    """Lets a numpy-based vector environment be used with PyTorch tensors: tensor actions in, tensors out.

    On the CPU the returned tensors share the environment's numpy batches (no copy).

    Example:
        >>> import torch, nbgym
        >>> envs = NumpyToTorch(nbgym.make_vec("CartPole-v1", 3))
        >>> obs, _ = envs.reset(seed=123)
        >>> type(obs), obs.shape
        (<class 'torch.Tensor'>, torch.Size([3, 4]))

    Args:
        env: The numpy-based vector environment to wrap.
        device: The device the tensors are moved to (``None``: torch's default).
    """

    def __init__(self, env: VectorEnv[Any, Any, Any], device: Device | None = None) -> None:
        super().__init__(env, env_xp=np, target_xp=torch, target_device=device)
        self.device: Device | None = device
