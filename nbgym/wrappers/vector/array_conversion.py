"""The vector version of :class:`nbgym.wrappers.ArrayConversion`: a vector environment's arrays in another framework."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from nbgym.utils import RecordConstructorArgs
from nbgym.vector import VectorEnv, VectorWrapper
from nbgym.wrappers.array_conversion import Device, array_conversion, module_namespace, picklable_state, restore_state

__all__ = ["ArrayConversion"]


class ArrayConversion(VectorWrapper[Any, Any, Any, Any, Any], RecordConstructorArgs):
    """Lets a vector environment of one array framework be used through another (``numpy``, ``torch``, ``jax.numpy``, ...).

    Actions are converted to the environment's framework; observations, rewards, terminations,
    truncations and infos to the target framework, without copies where DLPack can share the memory
    (a compiled nbgym vector env's numpy batches become CPU tensors that share their memory).

    Example:
        >>> import numpy as np, torch, nbgym                                          # doctest: +SKIP
        >>> envs = ArrayConversion(nbgym.make_vec("CartPole-v1", 8), env_xp=np, target_xp=torch)  # doctest: +SKIP

    Args:
        env: The vector environment to wrap.
        env_xp: The array module the environment takes and returns.
        target_xp: The array module to convert to.
        env_device: The device of the environment's arrays.
        target_device: The device on which arrays are returned.

    Raises:
        ValueError: ``env_xp`` or ``target_xp`` is not an array module.
    """

    def __init__(
        self,
        env: VectorEnv[Any, Any, Any],
        env_xp: ModuleType,
        target_xp: ModuleType,
        env_device: Device | None = None,
        target_device: Device | None = None,
    ) -> None:
        RecordConstructorArgs.__init__(self)
        VectorWrapper.__init__(self, env)
        self._env_xp = module_namespace(env_xp)
        self._target_xp = module_namespace(target_xp)
        self._env_device = env_device
        self._target_device = target_device

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Steps the environment with ``actions`` converted to its framework.

        Args:
            actions: The batch of actions as arrays of the target framework.

        Returns:
            Observations, rewards, terminations, truncations and infos in the target framework.
        """
        env_actions = array_conversion(actions, xp=self._env_xp, device=self._env_device)
        obs, rewards, terminations, truncations, infos = self.env.step(env_actions)
        return array_conversion((obs, rewards, terminations, truncations, infos), self._target_xp, self._target_device)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the environment, with ``options`` converted to its framework.

        Args:
            seed: The reset seed(s).
            options: Reset options (arrays of the target framework are converted).

        Returns:
            The observations and infos in the target framework.
        """
        if options:
            options = array_conversion(options, xp=self._env_xp, device=self._env_device)
        return array_conversion(self.env.reset(seed=seed, options=options), self._target_xp, self._target_device)

    def __getstate__(self) -> dict[str, Any]:
        """The pickled state, with the array modules by name (modules do not pickle)."""
        return picklable_state(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restores a pickled wrapper, importing its array modules."""
        restore_state(self, state)
