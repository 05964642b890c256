"""Environments over a JAX :class:`~nbgym.experimental.functional.FuncEnv`, as gymnasium 1.4.0's
``gymnasium.envs.functional_jax_env``: the same JAX calls in the same order, so the same keys give the same
numbers. Importing this module imports jax (``pip install "nbgym[jax]"``).
"""

from __future__ import annotations

from typing import Any, Generic, TypeAlias

import jax
import jax.numpy as jnp
import jax.random as jrng

from nbgym.core import Env
from nbgym.experimental.functional import ActType, FuncEnv, ObsType, StateType
from nbgym.registration import EnvSpec
from nbgym.utils import seeding
from nbgym.vector import AutoresetMode, VectorEnv
from nbgym.vector.utils import batch_space

__all__ = ["FunctionalJaxEnv", "FunctionalJaxVectorEnv"]

PRNGKeyType: TypeAlias = jax.Array


def _os_seeded_key() -> PRNGKeyType:
    """A key from a fresh OS-seeded draw of a uint32, as gymnasium's functional envs start unseeded."""
    generator, _ = seeding.np_random()
    return jrng.PRNGKey(generator.integers(0, 2**32 - 1, dtype="uint32"))


class FunctionalJaxEnv(Env, Generic[StateType]):
    """A single environment over a JAX ``FuncEnv``: the env keeps the state and a PRNG key, split at each call.

    Args:
        func_env: The functional environment (its functions usually ``transform(jax.jit)``-ed).
        metadata: The env's metadata (default ``{"render_mode": [], "jax": True}``, gymnasium's).
        render_mode: ``"rgb_array"`` renders with the functional env's ``render_image``.
        spec: The env's spec.
    """

    state: StateType
    rng: PRNGKeyType

    def __init__(
        self,
        func_env: FuncEnv,
        metadata: dict[str, Any] | None = None,
        render_mode: str | None = None,
        spec: EnvSpec | None = None,
    ):
        self.func_env = func_env
        self.observation_space = func_env.observation_space
        self.action_space = func_env.action_space
        # metadata["jax"] tells downstream code (check_env, JaxToNumpy) that the env takes and returns jax arrays.
        self.metadata = {"render_mode": [], "jax": True} if metadata is None else metadata
        self.render_mode = render_mode
        self.spec = spec
        self.render_state = func_env.render_init() if render_mode == "rgb_array" else None
        self.rng = _os_seeded_key()

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """A new initial state: the key of ``seed`` (or the env's next key) split once, one half drawing it."""
        super().reset(seed=seed)
        if seed is not None:
            self.rng = jrng.PRNGKey(seed)
        key, self.rng = jrng.split(self.rng)
        self.state = self.func_env.initial(rng=key)
        return self.func_env.observation(self.state, key), self.func_env.state_info(self.state)

    def step(self, action: ActType) -> tuple[Any, float, bool, bool, dict]:
        """One transition with a fresh key: ``(observation, float reward, bool terminated, False, info)``."""
        key, self.rng = jrng.split(self.rng)
        func_env = self.func_env
        next_state = func_env.transition(self.state, action, key)
        observation = func_env.observation(next_state, key)
        reward = func_env.reward(self.state, action, next_state, key)
        terminated = func_env.terminal(next_state, key)
        info = func_env.transition_info(self.state, action, next_state)
        self.state = next_state
        return observation, float(reward), bool(terminated), False, info

    def render(self) -> Any:
        """The frame of the current state in ``"rgb_array"`` mode.

        Raises:
            NotImplementedError: In any other render mode (as gymnasium's).
        """
        if self.render_mode != "rgb_array":
            raise NotImplementedError
        self.render_state, image = self.func_env.render_image(self.state, self.render_state)
        return image

    def close(self) -> None:
        """Releases the render state, if any."""
        if self.render_state is not None:
            self.func_env.render_close(self.render_state)
            self.render_state = None


class FunctionalJaxVectorEnv(VectorEnv[ObsType, ActType, Any], Generic[ObsType, ActType, StateType]):
    """A vector environment over a JAX ``FuncEnv``, ``jax.vmap``-ed over the sub-environments.

    As gymnasium's: a time limit counted per sub-environment (``max_episode_steps`` > 0), and the sub-environments
    that ended on the previous step start again from a fresh initial state (their terminated/truncated flags
    cleared; their reward is the transition's, as gymnasium's computes it).

    Args:
        func_env: The functional environment (``transform(jax.vmap)`` is applied to it here).
        num_envs: The number of sub-environments.
        max_episode_steps: The time limit (0: none).
        metadata: The env's metadata (default ``{"autoreset_mode": AutoresetMode.NEXT_STEP}``).
        render_mode: ``"rgb_array"`` renders with the functional env's ``render_image``.
        spec: The env's spec.
    """

    state: StateType
    rng: PRNGKeyType

    def __init__(
        self,
        func_env: FuncEnv[StateType, ObsType, ActType, Any, Any, Any, Any],
        num_envs: int,
        max_episode_steps: int = 0,
        metadata: dict[str, Any] | None = None,
        render_mode: str | None = None,
        spec: EnvSpec | None = None,
    ):
        super().__init__()
        self.func_env = func_env
        self.num_envs = num_envs
        self.single_observation_space = func_env.observation_space
        self.single_action_space = func_env.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP} if metadata is None else metadata
        self.render_mode = render_mode
        self.spec = spec
        self.time_limit = max_episode_steps
        self.steps = jnp.zeros(num_envs, dtype=jnp.int32)
        self.prev_done = jnp.zeros(num_envs, dtype=jnp.bool_)
        self.render_state = func_env.render_init() if render_mode == "rgb_array" else None
        self.rng = _os_seeded_key()
        func_env.transform(jax.vmap)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Every sub-environment from a new initial state, each with its own key split from the env's."""
        super().reset(seed=seed)
        if seed is not None:
            self.rng = jrng.PRNGKey(seed)
        key, self.rng = jrng.split(self.rng)
        keys = jrng.split(key, self.num_envs)
        self.state = self.func_env.initial(rng=keys)
        observation = self.func_env.observation(self.state, keys)
        info = self.func_env.state_info(self.state)
        self.steps = jnp.zeros(self.num_envs, dtype=jnp.int32)
        return observation, info

    def step(self, action: ActType) -> tuple[Any, Any, Any, Any, dict]:
        """One transition of every sub-environment; those that ended on the previous step start again."""
        func_env = self.func_env
        self.steps += 1
        key, self.rng = jrng.split(self.rng)
        keys = jrng.split(key, self.num_envs)
        next_state = func_env.transition(self.state, action, keys)
        reward = func_env.reward(self.state, action, next_state, keys)
        terminated = func_env.terminal(next_state, keys)
        truncated = self.steps >= self.time_limit if self.time_limit > 0 else jnp.zeros_like(terminated)
        info = func_env.transition_info(self.state, action, next_state)
        if jnp.any(self.prev_done):
            ended = jnp.where(self.prev_done)[0]
            key, self.rng = jrng.split(self.rng)
            fresh = func_env.initial(jrng.split(key, ended.shape[0]))
            # As gymnasium's: the fresh states go into the states before the transition.
            next_state = self.state.at[ended].set(fresh)
            self.steps = self.steps.at[ended].set(0)
            terminated = terminated.at[ended].set(False)
            truncated = truncated.at[ended].set(False)
        self.prev_done = jnp.logical_or(terminated, truncated)
        observation = func_env.observation(next_state, jrng.split(self.rng, self.num_envs))
        self.state = next_state
        return observation, reward, terminated, truncated, info

    def render(self) -> Any:
        """The frames of the sub-environments in ``"rgb_array"`` mode.

        Raises:
            NotImplementedError: In any other render mode (as gymnasium's).
        """
        if self.render_mode != "rgb_array":
            raise NotImplementedError
        self.render_state, image = self.func_env.render_image(self.state, self.render_state)
        return image

    def close(self, **kwargs: Any) -> None:
        """Releases the render state, if any."""
        if self.render_state is not None:
            self.func_env.render_close(self.render_state)
            self.render_state = None
