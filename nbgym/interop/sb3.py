"""A Stable-Baselines3 ``VecEnv`` over an nbgym vector environment (a compiled one: one call steps them all).

``SB3VecEnv(nbgym.make_vec("CartPole-v1", 8, autoreset_mode="SameStep"))`` gives SB3 what its
``DummyVecEnv`` of ``gymnasium.make("CartPole-v1")`` gives, bit for bit: the same observations,
float32 rewards, dones, per-environment infos with ``"TimeLimit.truncated"`` and, where an episode
ended, ``"terminal_observation"`` (and the reset's info in ``reset_infos``), and the same seeding
(``seed(s)`` seeds sub-environment ``i`` with ``s + i`` at the next ``reset``). So SB3 trains on it
exactly as on ``DummyVecEnv``, with the environments stepped in one compiled call.

Importing this module imports Stable-Baselines3 (and so torch).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from nbgym.interop.envs import to_gymnasium
from nbgym.vector import AutoresetMode, VectorEnv, VectorWrapper
from nbgym.wrappers.vector import DictInfoToList

__all__ = ["SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """Stable-Baselines3's ``VecEnv`` interface over an nbgym vector environment in ``SameStep`` autoreset mode.

    A compiled vector environment's attributes and methods belong to the whole batch, not to one
    sub-environment: :meth:`get_attr` gives the batch's value for every index asked for, and
    :meth:`set_attr` and :meth:`env_method` act on the batch, so they accept only ``indices=None``
    (or every index). Infos hold numpy scalars where ``DummyVecEnv``'s hold Python numbers (a vector
    environment's infos are arrays over the sub-environments); the values are equal.

    Args:
        env: An nbgym vector environment (e.g. ``nbgym.make_vec(id, n, autoreset_mode="SameStep")``),
            wrapped or not.

    Raises:
        TypeError: ``env`` is not an nbgym vector environment.
        ValueError: its autoreset mode is not ``SameStep`` (SB3 resets in the step that ends an episode).
    """

    def __init__(self, env: VectorEnv) -> None:
        if not isinstance(env, VectorEnv):
            raise TypeError(
                f"Expected an nbgym vector environment, got {type(env)}. For a gymnasium one, use SB3's DummyVecEnv "
                "or convert it with nbgym.interop.from_gymnasium."
            )
        mode = env.metadata.get("autoreset_mode")
        if mode is not AutoresetMode.SAME_STEP:
            raise ValueError(
                f"SB3VecEnv needs a vector environment that resets in the step that ends an episode, but its "
                f"autoreset mode is {mode}: make it with autoreset_mode='SameStep', e.g. "
                "nbgym.make_vec(env_id, num_envs, autoreset_mode='SameStep')."
            )
        self.env = env
        self._list_infos = DictInfoToList(env)
        self._actions: np.ndarray | None = None
        super().__init__(
            env.num_envs, to_gymnasium(env.single_observation_space), to_gymnasium(env.single_action_space)
        )

    def reset(self) -> Any:
        """Resets every sub-environment with the seeds of :meth:`seed` and options of :meth:`set_options`, if set.

        Returns:
            The batched observations; ``reset_infos`` holds each sub-environment's reset info.

        Raises:
            ValueError: The sub-environments were given different options (one compiled reset takes one set).
        """
        seed = None if all(seed is None for seed in self._seeds) else list(self._seeds)
        options = self._options[0] or None
        if any(other != self._options[0] for other in self._options[1:]):
            raise ValueError(
                "SB3VecEnv resets all sub-environments with one set of options; set_options got different ones."
            )
        observations, self.reset_infos = self._list_infos.reset(seed=seed, options=options)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        """Keeps the actions for :meth:`step_wait`.

        Args:
            actions: One action per sub-environment.
        """
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Steps every sub-environment in one call; ended episodes are reset in the same step.

        Returns:
            Observations, float32 rewards, dones and one info dict per sub-environment, as ``DummyVecEnv``.
        """
        observations, rewards, terminations, truncations, infos = self._list_infos.step(self._actions)
        dones = terminations | truncations
        time_limit_truncated = (truncations & ~terminations).tolist()
        # Only the sub-environments that were reset carry the step's final observation and info.
        for index in np.flatnonzero(dones).tolist():
            reset_info = infos[index]
            final_observation, final_info = reset_info.pop("final_obs"), reset_info.pop("final_info")
            self.reset_infos[index] = reset_info
            final_info["TimeLimit.truncated"] = time_limit_truncated[index]
            final_info["terminal_observation"] = final_observation
            infos[index] = final_info
        for info, truncated in zip(infos, time_limit_truncated):
            info["TimeLimit.truncated"] = truncated
        return observations, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        """Closes the vector environment."""
        self.env.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        """The frame of each sub-environment (``render_mode="rgb_array"``)."""
        return list(self.env.render())

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector environment's attribute ``attr_name``, once per index.

        Args:
            attr_name: The attribute (looked up through the vector environment's wrappers).
            indices: The sub-environments asked about (``None``: all).

        Returns:
            The value, once for each index.

        Raises:
            AttributeError: The vector environment has no such attribute.
        """
        value = getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Sets the vector environment's attribute ``attr_name`` (for every sub-environment).

        Args:
            attr_name: The attribute.
            value: Its new value.
            indices: ``None`` or every index: the attribute belongs to the whole batch.

        Raises:
            ValueError: ``indices`` selects only some sub-environments.
        """
        self._check_whole_batch(indices, f"set_attr({attr_name!r})")
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Calls the vector environment's method ``method_name`` once.

        Args:
            method_name: The method.
            *method_args: Its positional arguments.
            indices: ``None`` or every index: the method acts on the whole batch.
            **method_kwargs: Its keyword arguments.

        Returns:
            The method's result, once for each sub-environment.

        Raises:
            ValueError: ``indices`` selects only some sub-environments.
        """
        self._check_whole_batch(indices, f"env_method({method_name!r})")
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in range(self.num_envs)]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """Whether a wrapper of class ``wrapper_class`` wraps the vector environment, once per index.

        Args:
            wrapper_class: A vector wrapper class.
            indices: The sub-environments asked about (``None``: all).

        Returns:
            The answer, once for each index.
        """
        env, wrapped = self.env, False
        while isinstance(env, VectorWrapper) and not wrapped:
            wrapped, env = isinstance(env, wrapper_class), env.env
        return [wrapped for _ in self._get_indices(indices)]

    def _check_whole_batch(self, indices: VecEnvIndices, call: str) -> None:
        selected = list(self._get_indices(indices))
        if sorted(selected) != list(range(self.num_envs)):
            raise ValueError(
                f"{call} with indices={indices!r}: a compiled vector environment's attributes and methods belong "
                "to all its sub-environments at once; call it with indices=None."
            )
