"""The wrappers that ``nbgym.make`` applies, and other common ones.

* :class:`TimeLimit` - truncates an episode after a number of steps.
* :class:`Autoreset` - resets the environment on the step after an episode ended.
* :class:`PassiveEnvChecker` - checks the first ``reset``, ``step`` and ``render`` against the API.
* :class:`OrderEnforcing` - raises if ``step`` or ``render`` is called before ``reset``.
* :class:`RecordEpisodeStatistics` - adds the return, length and duration of each episode to ``info``.

These sit on the hot path of every made environment, so their ``step`` does no work beyond its job.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any, SupportsFloat

from nbgym import logger
from nbgym.core import ActType, Env, ObsType, RenderFrame, Wrapper
from nbgym.error import ResetNeeded
from nbgym.utils.passive_env_checker import (
    check_action_space,
    check_observation_space,
    env_data_reuse_passive_checker,
    env_render_passive_checker,
    env_reset_passive_checker,
    env_step_passive_checker,
)
from nbgym.utils.record_constructor import RecordConstructorArgs

if TYPE_CHECKING:
    from nbgym.registration import EnvSpec

__all__ = ["TimeLimit", "Autoreset", "PassiveEnvChecker", "OrderEnforcing", "RecordEpisodeStatistics"]

_CUSTOM_ENV_DOCS = "https://gymnasium.farama.org/introduction/create_custom_env/"


def check_max_episode_steps(max_episode_steps: Any) -> None:
    """Refuses what :class:`TimeLimit` refuses as a time limit, with gymnasium's errors.

    Raises:
        TypeError: ``max_episode_steps`` is not an int.
        ValueError: ``max_episode_steps`` is not positive.
    """
    if not isinstance(max_episode_steps, int):
        raise TypeError(f"Expect the `max_episode_steps` to be an integer, actually: {type(max_episode_steps)}")
    if max_episode_steps <= 0:
        raise ValueError(f"Expect the `max_episode_steps` to be positive, actually: {max_episode_steps}")


class TimeLimit(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Truncates the episode once ``max_episode_steps`` steps have been taken since the last ``reset``.

    The step that reaches the limit returns ``truncated=True`` (alongside whatever ``terminated`` the
    environment returns). The wrapper's spec has ``max_episode_steps`` set to the limit.

    Example:
        >>> import nbgym
        >>> env = nbgym.make("CartPole-v1", max_episode_steps=3)
        >>> _ = env.reset(seed=123)
        >>> [env.step(0)[3] for _ in range(3)]
        [False, False, True]
    """

    def __init__(self, env: Env, max_episode_steps: int):
        """Wraps ``env`` with a limit of ``max_episode_steps`` steps per episode.

        Args:
            env: The environment to wrap.
            max_episode_steps: The number of steps after which an episode is truncated.

        Raises:
            TypeError: ``max_episode_steps`` is not an int.
            ValueError: ``max_episode_steps`` is not positive.
        """
        check_max_episode_steps(max_episode_steps)
        RecordConstructorArgs.__init__(self, max_episode_steps=max_episode_steps)
        Wrapper.__init__(self, env)

        self._max_episode_steps = max_episode_steps
        # `None` until the first reset: stepping before it fails.
        self._elapsed_steps: int | None = None

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment; ``truncated`` is ``True`` once the step limit is reached."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._elapsed_steps += 1
        if self._elapsed_steps >= self._max_episode_steps:
            truncated = True
        return obs, reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment and the step count."""
        self._elapsed_steps = 0
        return self.env.reset(seed=seed, options=options)

    @property
    def spec(self) -> EnvSpec | None:
        """The wrapped environment's spec with ``max_episode_steps`` set to this wrapper's limit."""

        def set_limit(spec: EnvSpec) -> None:
            spec.max_episode_steps = self._max_episode_steps

        return self._derived_spec(set_limit)


class Autoreset(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Resets the environment automatically on the step after an episode terminated or truncated.

    That step ignores its action and returns ``(reset_obs, 0.0, False, False, reset_info)``, as the
    vector environments' default ``AutoresetMode.NEXT_STEP`` does.
    """

    def __init__(self, env: Env):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
        """
        RecordConstructorArgs.__init__(self)
        Wrapper.__init__(self, env)
        self.autoreset = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment; no automatic reset is pending afterwards."""
        self.autoreset = False
        return self.env.reset(seed=seed, options=options)

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment, or resets it (ignoring ``action``) when the previous step ended the episode."""
        if self.autoreset:
            obs, info = self.env.reset()
            reward, terminated, truncated = 0.0, False, False
        else:
            obs, reward, terminated, truncated, info = self.env.step(action)
        self.autoreset = terminated or truncated
        return obs, reward, terminated, truncated, info


class PassiveEnvChecker(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Checks the spaces at construction, and the first ``reset``, ``step`` and ``render`` calls, against the API.

    After its checks each method passes straight through to the wrapped environment. ``nbgym.make``
    applies it unless ``disable_env_checker=True``.

    Attributes:
        checked_reset: Whether the first ``reset`` was checked.
        checked_step: Whether the first ``step`` was checked.
        checked_render: Whether the first ``render`` was checked.
        checked_data_reuse: Whether the second ``step`` was checked for data shared with the first.
        close_called: Whether ``close`` was called.
    """

    def __init__(self, env: Env[ObsType, ActType]):
        """Wraps ``env`` and checks its action and observation spaces.

        Args:
            env: The environment to wrap.

        Raises:
            TypeError: ``env`` is not an :class:`~nbgym.Env`, or a space is not an nbgym space.
            AttributeError: The environment has no action or observation space.
            AssertionError: A space is malformed.
        """
        RecordConstructorArgs.__init__(self)
        Wrapper.__init__(self, env)

        if not hasattr(env, "action_space"):
            raise AttributeError(f"The environment must specify an action space. {_CUSTOM_ENV_DOCS}")
        check_action_space(env.action_space)
        if not hasattr(env, "observation_space"):
            raise AttributeError(f"The environment must specify an observation space. {_CUSTOM_ENV_DOCS}")
        check_observation_space(env.observation_space)

        self.checked_reset: bool = False
        self.checked_step: bool = False
        self.checked_render: bool = False
        self.close_called: bool = False

        # The first step's data is compared with the first reset's, the second step's with the first step's.
        self.checked_data_reuse: bool = False
        self._previous_data: tuple[ObsType, dict[str, Any]] | None = None

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment, checking the first two steps."""
        if self.checked_data_reuse:
            return self.env.step(action)

        if self.checked_step:
            result = self.env.step(action)
            previous_source = "step"
            self.checked_data_reuse = True
        else:
            self.checked_step = True
            result = env_step_passive_checker(self.env, action)
            previous_source = "reset"

        obs, _, _, _, info = result
        if self._previous_data is not None:
            env_data_reuse_passive_checker(self._previous_data, (obs, info), previous_source, "step")
        self._previous_data = None if self.checked_data_reuse else (obs, info)
        return result

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment, checking the first reset."""
        if self.checked_reset:
            return self.env.reset(seed=seed, options=options)
        self.checked_reset = True
        self._previous_data = env_reset_passive_checker(self.env, seed=seed, options=options)
        return self._previous_data

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Renders the environment, checking the first render."""
        if self.checked_render:
            return self.env.render()
        self.checked_render = True
        return env_render_passive_checker(self.env)

    @property
    def spec(self) -> EnvSpec | None:
        """The wrapped environment's spec with ``disable_env_checker=False``."""

        def enable_checker(spec: EnvSpec) -> None:
            spec.disable_env_checker = False

        return self._derived_spec(enable_checker)

    def close(self) -> None:
        """Closes the environment; warns (and re-raises) if closing it a second time raises."""
        if not self.close_called:
            self.close_called = True
            return self.env.close()
        try:
            return self.env.close()
        except Exception:
            logger.warn(
                "Calling `env.close()` on the closed environment should be allowed, but it raised the following "
                "exception."
            )
            raise


class OrderEnforcing(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Raises :class:`~nbgym.error.ResetNeeded` when ``step`` (or ``render``) is called before ``reset``."""

    def __init__(self, env: Env[ObsType, ActType], disable_render_order_enforcing: bool = False):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            disable_render_order_enforcing: Whether to allow ``render`` before ``reset``.
        """
        RecordConstructorArgs.__init__(self, disable_render_order_enforcing=disable_render_order_enforcing)
        Wrapper.__init__(self, env)
        self._has_reset: bool = False
        self._disable_render_order_enforcing: bool = disable_render_order_enforcing

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment.

        Raises:
            ResetNeeded: The environment was never reset.
        """
        if not self._has_reset:
            raise ResetNeeded("Cannot call env.step() before calling env.reset()")
        return self.env.step(action)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment."""
        self._has_reset = True
        return self.env.reset(seed=seed, options=options)

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Renders the environment.

        Raises:
            ResetNeeded: The environment was never reset (unless render order enforcing is disabled).
        """
        if not self._disable_render_order_enforcing and not self._has_reset:
            raise ResetNeeded(
                "Cannot call `env.render()` before calling `env.reset()`, if this is an intended action, "
                "set `disable_render_order_enforcing=True` on the OrderEnforcer wrapper."
            )
        return self.env.render()

    @property
    def has_reset(self) -> bool:
        """Whether the environment has been reset."""
        return self._has_reset

    @property
    def spec(self) -> EnvSpec | None:
        """The wrapped environment's spec with ``order_enforce=True``."""

        def enforce_order(spec: EnvSpec) -> None:
            spec.order_enforce = True

        return self._derived_spec(enforce_order)


class RecordEpisodeStatistics(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Adds the statistics of each finished episode to the ``info`` of its last step.

    The last step's ``info[stats_key]`` is ``{"r": return, "l": length, "t": seconds since the reset,
    rounded to microseconds}``; the last ``buffer_length`` returns, lengths and durations are kept in
    :attr:`return_queue`, :attr:`length_queue` and :attr:`time_queue`.

    Attributes:
        episode_count: The number of finished episodes.
        return_queue: The returns of the latest episodes.
        length_queue: The lengths of the latest episodes.
        time_queue: The durations (seconds) of the latest episodes.
    """

    def __init__(self, env: Env[ObsType, ActType], buffer_length: int = 100, stats_key: str = "episode"):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            buffer_length: How many episodes :attr:`return_queue`, :attr:`length_queue` and :attr:`time_queue` keep.
            stats_key: The info key of the episode statistics.
        """
        RecordConstructorArgs.__init__(self, buffer_length=buffer_length, stats_key=stats_key)
        Wrapper.__init__(self, env)

        self._stats_key = stats_key

        self.episode_count = 0
        self.episode_start_time: float = -1
        self.episode_returns: float = 0.0
        self.episode_lengths: int = 0

        self.time_queue: deque[float] = deque(maxlen=buffer_length)
        self.return_queue: deque[float] = deque(maxlen=buffer_length)
        self.length_queue: deque[int] = deque(maxlen=buffer_length)

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment and accumulates the episode's return and length.

        Raises:
            AssertionError: The environment's info already holds the statistics key at an episode's end.
        """
        obs, reward, terminated, truncated, info = self.env.step(action)

        self.episode_returns += reward
        self.episode_lengths += 1

        if terminated or truncated:
            assert self._stats_key not in info
            now = time.perf_counter()
            episode_time_length = round(now - self.episode_start_time, 6)
            info[self._stats_key] = {"r": self.episode_returns, "l": self.episode_lengths, "t": episode_time_length}

            self.time_queue.append(episode_time_length)
            self.return_queue.append(self.episode_returns)
            self.length_queue.append(self.episode_lengths)

            self.episode_count += 1
            self.episode_start_time = now

        return obs, reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment and the episode's return and length."""
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode_start_time = time.perf_counter()
        self.episode_returns = 0.0
        self.episode_lengths = 0
        return obs, info
