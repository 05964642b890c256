"""A vector environment that steps its sub-environments one after the other in the main process."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic

import numpy as np

from nbgym.core import ActType, Env, ObsType, RenderFrame
from nbgym.spaces import Space
from nbgym.spaces.utils import is_space_dtype_shape_equiv
from nbgym.vector._common import (
    copy_batch,
    per_env_values,
    pop_reset_mask,
    resolve_autoreset_mode,
    resolve_observation_spaces,
    seeds_for,
)
from nbgym.vector.utils import batch_space, concatenate, create_empty_array, iterate
from nbgym.vector.vector_env import AutoresetMode, VectorEnv

__all__ = ["SyncVectorEnv"]


class SyncVectorEnv(VectorEnv[ObsType, ActType, np.ndarray], Generic[ObsType, ActType]):
    """Runs several environments one after the other in the main process, as one vector environment.

    Example:
        >>> import nbgym
        >>> envs = nbgym.vector.SyncVectorEnv([lambda: nbgym.make("CartPole-v1") for _ in range(2)])
        >>> observations, infos = envs.reset(seed=42)
        >>> observations.shape
        (2, 4)
        >>> envs.close()
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env]],
        copy: bool = True,
        observation_mode: str | tuple[Space[Any], Space[Any]] = "same",
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
    ) -> None:
        """Create the sub-environments.

        Args:
            env_fns: Functions that create the sub-environments, one each.
            copy: Whether :meth:`reset` and :meth:`step` return a copy of the observation buffer
                (otherwise the same buffer, overwritten by the next call).
            observation_mode: How the observation spaces are batched: ``"same"`` (identical spaces),
                ``"different"`` (same shape and dtype, different parameters) or a
                ``(observation_space, single_observation_space)`` tuple.
            autoreset_mode: The :class:`AutoresetMode` (or its value).

        Raises:
            RuntimeError: If a sub-environment's observation space does not fit
                ``observation_mode``, or its action space differs from the first one's.
        """
        self.env_fns = env_fns
        self.copy = copy
        self.observation_mode = observation_mode
        self.autoreset_mode = resolve_autoreset_mode(autoreset_mode)

        self.envs = [env_fn() for env_fn in env_fns]

        # No `spec`: one spec cannot describe sub-environments made by arbitrary functions.
        self.num_envs = len(self.envs)
        # A copy, so that setting the autoreset mode leaves the env class's metadata alone.
        self.metadata = dict(self.envs[0].metadata)
        self.metadata["autoreset_mode"] = self.autoreset_mode
        self.render_mode = self.envs[0].render_mode

        self.single_action_space = self.envs[0].action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.single_observation_space, self.observation_space = resolve_observation_spaces(
            observation_mode,
            self.num_envs,
            lambda: self.envs[0].observation_space,
            lambda: [env.observation_space for env in self.envs],
        )
        self._check_spaces()

        self._env_obs: list[Any] = [None] * self.num_envs
        self._observations = create_empty_array(self.single_observation_space, n=self.num_envs, fn=np.zeros)
        self._rewards = np.zeros((self.num_envs,), dtype=np.float64)
        self._terminations = np.zeros((self.num_envs,), dtype=np.bool_)
        self._truncations = np.zeros((self.num_envs,), dtype=np.bool_)
        self._autoreset_envs = np.zeros((self.num_envs,), dtype=np.bool_)

    def _check_spaces(self) -> None:
        for env in self.envs:
            if self.observation_mode == "same":
                if env.observation_space != self.single_observation_space:
                    raise RuntimeError(
                        "SyncVectorEnv(..., observation_mode='same') however the sub-environments observation "
                        f"spaces are not equivalent. single_observation_space={self.single_observation_space}, "
                        f"sub-environment observation_space={env.observation_space}. If this is intentional, "
                        "use `observation_mode='different'` instead."
                    )
            elif not is_space_dtype_shape_equiv(env.observation_space, self.single_observation_space):
                raise RuntimeError(
                    "SyncVectorEnv(..., observation_mode='different' or custom space) however the sub-environments "
                    "observation spaces do not share a common shape and dtype, "
                    f"single_observation_space={self.single_observation_space}, "
                    f"sub-environment observation space={env.observation_space}"
                )
            if env.action_space != self.single_action_space:
                raise RuntimeError(
                    "Sub-environment action space doesn't make the `single_action_space`, "
                    f"action_space={env.action_space}, single_action_space={self.single_action_space}"
                )

    @property
    def np_random_seed(self) -> tuple[int, ...]:
        """The ``np_random_seed`` of each sub-environment."""
        return self.get_attr("np_random_seed")

    @property
    def np_random(self) -> tuple[np.random.Generator, ...]:
        """The ``np_random`` generator of each sub-environment."""
        return self.get_attr("np_random")

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the sub-environments (all, or those of ``options["reset_mask"]``) and batch the results.

        Args:
            seed: ``None`` (unseeded resets), an int ``s`` (sub-environment ``i`` gets ``s + i``) or
                a list with one seed (or ``None``) per sub-environment.
            options: Reset options given to every sub-environment. A ``"reset_mask"`` entry (a bool
                array of shape ``(num_envs,)``) is removed from it and selects the sub-environments
                to reset; the others keep their current observation.

        Returns:
            The batched observations and the merged info of the reset sub-environments.

        Raises:
            ValueError: If a list of seeds has the wrong length, or the reset mask the wrong
                shape or no True value.
            TypeError: If the reset mask is not a numpy bool array.
        """
        seeds = seeds_for(seed, self.num_envs)
        reset_mask = pop_reset_mask(options, self.num_envs)
        if reset_mask is None:
            self._terminations = np.zeros((self.num_envs,), dtype=np.bool_)
            self._truncations = np.zeros((self.num_envs,), dtype=np.bool_)
            self._autoreset_envs = np.zeros((self.num_envs,), dtype=np.bool_)
            selected = range(self.num_envs)
        else:
            self._terminations[reset_mask] = False
            self._truncations[reset_mask] = False
            self._autoreset_envs[reset_mask] = False
            selected = np.flatnonzero(reset_mask).tolist()

        infos: dict[str, Any] = {}
        for i in selected:
            self._env_obs[i], env_info = self.envs[i].reset(seed=seeds[i], options=options)
            infos = self._add_info(infos, env_info, i)

        self._observations = concatenate(self.single_observation_space, self._env_obs, self._observations)
        return (copy_batch(self._observations) if self.copy else self._observations), infos

    def step(self, actions: ActType) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment with its action, autoresetting as ``autoreset_mode`` says.

        Args:
            actions: A batch of actions, an element of :attr:`action_space`.

        Returns:
            The batched ``(observations, rewards, terminations, truncations, infos)``; rewards are
            float64, terminations and truncations bool arrays.

        Raises:
            AssertionError: In ``DISABLED`` mode, if a sub-environment whose episode ended was not
                reset (with ``reset(options={"reset_mask": ...})``) before this step.
        """
        mode = self.autoreset_mode
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED):
            raise ValueError(f"Unexpected autoreset mode, {mode}")
        if mode is AutoresetMode.DISABLED and self._autoreset_envs.any():
            raise AssertionError(
                f"Sub-environments {np.flatnonzero(self._autoreset_envs).tolist()} ended their episode and "
                "autoreset_mode is DISABLED: reset them with `reset(options={'reset_mask': ...})` before stepping. "
                f"{self._autoreset_envs=}"
            )

        env_obs, rewards, terminations, truncations = (
            self._env_obs,
            self._rewards,
            self._terminations,
            self._truncations,
        )
        infos: dict[str, Any] = {}
        for i, (env, action) in enumerate(zip(self.envs, iterate(self.action_space, actions), strict=True)):
            if mode is AutoresetMode.NEXT_STEP and self._autoreset_envs[i]:
                env_obs[i], env_info = env.reset()
                rewards[i], terminations[i], truncations[i] = 0.0, False, False
            else:
                env_obs[i], rewards[i], terminations[i], truncations[i], env_info = env.step(action)
                if mode is AutoresetMode.SAME_STEP and (terminations[i] or truncations[i]):
                    infos = self._add_info(infos, {"final_obs": env_obs[i], "final_info": env_info}, i)
                    env_obs[i], env_info = env.reset()
            infos = self._add_info(infos, env_info, i)

        self._observations = concatenate(self.single_observation_space, env_obs, self._observations)
        self._autoreset_envs = np.logical_or(terminations, truncations)
        return (
            copy_batch(self._observations) if self.copy else self._observations,
            rewards.copy(),
            terminations.copy(),
            truncations.copy(),
            infos,
        )

    def render(self) -> tuple[RenderFrame, ...]:
        """The rendered frame of each sub-environment."""
        return tuple(env.render() for env in self.envs)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call the method ``name`` of every sub-environment (or read it, if not callable).

        The attribute is looked up through the sub-environment's wrappers (``get_wrapper_attr``).

        Args:
            name: The name of the method or attribute.
            *args: Positional arguments of the call.
            **kwargs: Keyword arguments of the call.

        Returns:
            The result (or attribute value) of each sub-environment.
        """
        results = []
        for env in self.envs:
            attribute = env.get_wrapper_attr(name)
            results.append(attribute(*args, **kwargs) if callable(attribute) else attribute)
        return tuple(results)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """The attribute ``name`` of every sub-environment (called, if it is callable).

        Args:
            name: The attribute's name.

        Returns:
            The value of each sub-environment.
        """
        return self.call(name)

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Set the attribute ``name`` of the sub-environments (through their wrappers).

        Args:
            name: The attribute's name.
            values: One value per sub-environment as a list or tuple, or one value for all.

        Raises:
            ValueError: If a list or tuple does not have one value per sub-environment.
        """
        for env, value in zip(self.envs, per_env_values(values, self.num_envs), strict=True):
            env.set_wrapper_attr(name, value)

    def close_extras(self, **kwargs: Any) -> None:
        """Close every sub-environment."""
        # `envs` is missing if `__init__` failed while making them.
        for env in getattr(self, "envs", ()):
            env.close()
