"""Observation wrappers with a state.

* :class:`DelayObservation` - returns the observation of ``delay`` steps ago.
* :class:`TimeAwareObservation` - adds the number of steps taken in the episode to the observation.
* :class:`FrameStackObservation` - stacks the last ``stack_size`` observations.
* :class:`NormalizeObservation` - normalises observations with running mean and variance.
* :class:`MaxAndSkipObservation` - repeats each action ``skip`` times, returning the maximum of the last two frames.
"""

from __future__ import annotations

from collections import deque
from copy import deepcopy
from typing import Any, Callable, Final, SupportsFloat

import numpy as np

from nbgym import spaces
from nbgym.core import ActType, Env, ObservationWrapper, ObsType, Wrapper, WrapperObsType
from nbgym.error import InvalidBound
from nbgym.utils.record_constructor import RecordConstructorArgs
from nbgym.vector.utils import batch_space, concatenate, create_empty_array
from nbgym.wrappers.common import TimeLimit
from nbgym.wrappers.utils import RunningMeanStd, RunningStatisticsSwitch, create_zero_array

__all__ = [
    "DelayObservation",
    "TimeAwareObservation",
    "FrameStackObservation",
    "NormalizeObservation",
    "MaxAndSkipObservation",
]


class DelayObservation(ObservationWrapper[ObsType, ActType, ObsType], RecordConstructorArgs):
    """Returns the observation of ``delay`` steps ago; until there is one, the zero observation of the space.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import DelayObservation
        >>> env = DelayObservation(nbgym.make("CartPole-v1"), delay=1)
        >>> env.reset(seed=42)
        (array([0., 0., 0., 0.], dtype=float32), {})
        >>> env.step(1)[0]
        array([ 0.0273956 , -0.00611216,  0.03585979,  0.0197368 ], dtype=float32)

    Attributes:
        delay: The number of steps of delay.
        observation_queue: The observations not returned yet.
    """

    def __init__(self, env: Env[ObsType, ActType], delay: int):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            delay: The number of steps of delay (0 for none).

        Raises:
            TypeError: ``delay`` is not an int.
            ValueError: ``delay`` is negative.
        """
        if not np.issubdtype(type(delay), np.integer):
            raise TypeError(f"The delay is expected to be an integer, actual type: {type(delay)}")
        if not 0 <= delay:
            raise ValueError(f"The delay needs to be greater than zero, actual value: {delay}")
        RecordConstructorArgs.__init__(self, delay=delay)
        ObservationWrapper.__init__(self, env)

        self.delay: Final[int] = int(delay)
        self.observation_queue: Final[deque] = deque()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment and forgets the queued observations."""
        self.observation_queue.clear()
        return super().reset(seed=seed, options=options)

    def observation(self, observation: ObsType) -> ObsType:
        """Queues ``observation`` and returns the one of ``delay`` steps ago (or the zero observation)."""
        self.observation_queue.append(observation)
        if len(self.observation_queue) > self.delay:
            return self.observation_queue.popleft()
        return create_zero_array(self.observation_space)


def _find_time_limit(env: Env) -> int:
    """The step limit of ``env``: its spec's ``max_episode_steps``, else that of a ``TimeLimit`` in its stack.

    Raises:
        ValueError: Neither exists.
    """
    if env.spec is not None and env.spec.max_episode_steps is not None:
        return env.spec.max_episode_steps
    layer = env
    while isinstance(layer, Wrapper):
        if isinstance(layer, TimeLimit):
            return layer._max_episode_steps
        layer = layer.env
    raise ValueError(
        "The environment must be wrapped by a TimeLimit wrapper or the spec specify a `max_episode_steps`."
    )


class TimeAwareObservation(ObservationWrapper[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Adds the number of steps taken in the episode to the observation.

    The time is an ``int32`` array ``[t]`` in ``[0, max_episode_steps]``, or with ``normalize_time`` a
    ``float32`` array ``[t / max_episode_steps]`` in ``[0, 1]``. A ``Dict`` observation gets it under
    ``dict_time_key``, a ``Tuple`` observation as its last element, any other observation becomes
    ``{"obs": obs, "time": time}``; with ``flatten`` (the default) the result is then flattened. The step
    limit comes from the environment's spec, or from a :class:`~nbgym.wrappers.TimeLimit` below.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import TimeAwareObservation
        >>> env = TimeAwareObservation(nbgym.make("CartPole-v1"))
        >>> env.observation_space.shape
        (5,)
        >>> _ = env.reset(seed=42)
        >>> env.step(1)[0][-1]
        np.float64(1.0)

    Attributes:
        flatten: Whether the observations are flattened.
        normalize_time: Whether the time is divided by the step limit.
        max_timesteps: The step limit.
        timesteps: The number of steps taken in the episode.
    """

    max_timesteps: int

    def __init__(
        self,
        env: Env[ObsType, ActType],
        flatten: bool = True,
        normalize_time: bool = False,
        *,
        dict_time_key: str = "time",
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; it must have a step limit.
            flatten: Whether to flatten the observations (into a ``Box``).
            normalize_time: Whether to divide the time by the step limit.
            dict_time_key: The key of the time in a ``Dict`` observation.

        Raises:
            ValueError: The environment has no step limit, or ``dict_time_key`` is already a key of its
                ``Dict`` observation space.
        """
        RecordConstructorArgs.__init__(
            self, flatten=flatten, normalize_time=normalize_time, dict_time_key=dict_time_key
        )
        ObservationWrapper.__init__(self, env)

        self.flatten: Final[bool] = flatten
        self.normalize_time: Final[bool] = normalize_time
        self.max_timesteps = _find_time_limit(env)
        self.timesteps: int = 0

        self._time_preprocess_func: Callable[[int], np.ndarray]
        if normalize_time:
            self._time_preprocess_func = lambda time: np.array([time / self.max_timesteps], dtype=np.float32)
            time_space = spaces.Box(0.0, 1.0)
        else:
            self._time_preprocess_func = lambda time: np.array([time], dtype=np.int32)
            time_space = spaces.Box(0, self.max_timesteps, dtype=np.int32)

        space = env.observation_space
        self._append_data_func: Callable[[Any, np.ndarray], Any]
        if isinstance(space, spaces.Dict):
            if dict_time_key in space.keys():
                raise ValueError(f"The `dict_time_key` ({dict_time_key!r}) already exists in the observation space.")
            timed_space: spaces.Space = spaces.Dict(
                {dict_time_key: time_space, **space.spaces}, sort_keys=space.sort_keys
            )
            self._append_data_func = lambda obs, time: {dict_time_key: time, **obs}
        elif isinstance(space, spaces.Tuple):
            timed_space = spaces.Tuple(space.spaces + (time_space,))
            self._append_data_func = lambda obs, time: obs + (time,)
        else:
            timed_space = spaces.Dict(obs=space, time=time_space)
            self._append_data_func = lambda obs, time: {"obs": obs, "time": time}

        if flatten:
            self.observation_space = spaces.flatten_space(timed_space)
            self._obs_postprocess_func: Callable[[Any], Any] = lambda obs: spaces.flatten(timed_space, obs)
        else:
            self.observation_space = timed_space
            self._obs_postprocess_func = lambda obs: obs

    def observation(self, observation: ObsType) -> WrapperObsType:
        """Returns ``observation`` with the current time added."""
        timed = self._append_data_func(observation, self._time_preprocess_func(self.timesteps))
        return self._obs_postprocess_func(timed)

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Counts the step, then steps the environment."""
        self.timesteps += 1
        return super().step(action)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Resets the environment and the time to 0."""
        self.timesteps = 0
        return super().reset(seed=seed, options=options)


class FrameStackObservation(Wrapper[WrapperObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Returns the last ``stack_size`` observations, stacked along a new first axis (oldest first).

    After a reset, the missing older observations are padded with ``padding_type``: ``"reset"`` (the
    default) repeats the reset observation, ``"zero"`` uses the zero observation of the space, and an
    element of the observation space is used as it is.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import FrameStackObservation
        >>> env = FrameStackObservation(nbgym.make("CartPole-v1"), stack_size=3, padding_type="zero")
        >>> env.observation_space.shape
        (3, 4)
        >>> env.reset(seed=42)[0]
        array([[ 0.        ,  0.        ,  0.        ,  0.        ],
               [ 0.        ,  0.        ,  0.        ,  0.        ],
               [ 0.0273956 , -0.00611216,  0.03585979,  0.0197368 ]],
              dtype=float32)

    Attributes:
        stack_size: The number of stacked observations.
        padding_type: ``"reset"``, ``"zero"`` or ``"_custom"``.
        padding_value: The observation that pads the stack after a reset.
    """

    def __init__(self, env: Env[ObsType, ActType], stack_size: int, *, padding_type: str | ObsType = "reset"):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            stack_size: The number of observations to stack (at least 1).
            padding_type: ``"reset"``, ``"zero"``, or an element of the observation space.

        Raises:
            TypeError: ``stack_size`` is not an int.
            ValueError: ``stack_size`` is below 1, or ``padding_type`` is none of the above.
        """
        RecordConstructorArgs.__init__(self, stack_size=stack_size, padding_type=padding_type)
        Wrapper.__init__(self, env)

        if not np.issubdtype(type(stack_size), np.integer):
            raise TypeError(f"The stack_size is expected to be an integer, actual type: {type(stack_size)}")
        if not 0 < stack_size:
            raise ValueError(f"The stack_size needs to be greater than zero, actual value: {stack_size}")
        if isinstance(padding_type, str) and padding_type in ("reset", "zero"):
            self.padding_value: ObsType = create_zero_array(env.observation_space)
        elif padding_type in env.observation_space:
            self.padding_value = padding_type
            padding_type = "_custom"
        elif isinstance(padding_type, str):
            # Most likely a misspelt "reset" or "zero".
            raise ValueError(
                "Unexpected `padding_type`, expected 'reset', 'zero' or a custom observation space, "
                f"actual value: {padding_type!r}"
            )
        else:
            raise ValueError(
                "Unexpected `padding_type`, expected 'reset', 'zero' or a custom observation space, "
                f"actual value: {padding_type!r} not an instance of env observation ({env.observation_space})"
            )

        self.observation_space = batch_space(env.observation_space, n=stack_size)
        self.stack_size: Final[int] = stack_size
        self.padding_type: Final[str] = padding_type

        self.obs_queue = deque([self.padding_value for _ in range(stack_size)], maxlen=stack_size)
        self.stacked_obs = create_empty_array(env.observation_space, n=stack_size)

    def _stacked(self) -> WrapperObsType:
        """A new stack of the queued observations."""
        return deepcopy(concatenate(self.env.observation_space, self.obs_queue, self.stacked_obs))

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment and returns the stack ending with the new observation."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.obs_queue.append(obs)
        return self._stacked(), reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Resets the environment and returns the padding followed by the reset observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        if self.padding_type == "reset":
            self.padding_value = obs
        for _ in range(self.stack_size - 1):
            self.obs_queue.append(self.padding_value)
        self.obs_queue.append(obs)
        return self._stacked(), info


def check_epsilon(epsilon: float) -> None:
    """Checks the stability constant of a normalisation.

    Raises:
        InvalidBound: ``epsilon`` is not positive.
    """
    # epsilon keeps the division away from zero; a non-positive one can make the observations NaN.
    if epsilon <= 0:
        raise InvalidBound(f"`epsilon` should be strictly positive. Received {epsilon}")


class NormalizeObservation(
    ObservationWrapper[WrapperObsType, ActType, ObsType], RecordConstructorArgs, RunningStatisticsSwitch
):
    """Normalises observations to zero mean and unit variance with running statistics, as ``float32``.

    Each observation (of ``reset`` and ``step``) is added to :attr:`obs_rms`, then returned as
    ``float32((obs - mean) / sqrt(var + epsilon))``. Set :attr:`update_running_mean` to ``False`` to
    freeze the statistics, e.g. for evaluation. The batched counterpart is
    :class:`nbgym.wrappers.vector.NormalizeObservation`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import NormalizeObservation
        >>> env = NormalizeObservation(nbgym.make("CartPole-v1"))
        >>> env.reset(seed=42)[0]
        array([ 2.7389239e-04, -6.1140192e-05,  3.5851507e-04,  1.9740195e-04],
              dtype=float32)

    Attributes:
        obs_rms: The running statistics of the observations.
        epsilon: The stability constant under the square root.
    """

    def __init__(self, env: Env[ObsType, ActType], epsilon: float = 1e-8):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observation space must have a shape.
            epsilon: A positive constant added to the variance before the square root.

        Raises:
            InvalidBound: ``epsilon`` is not positive.
            ValueError: The observation space has no shape.
        """
        check_epsilon(epsilon)
        RecordConstructorArgs.__init__(self, epsilon=epsilon)
        ObservationWrapper.__init__(self, env)

        if env.observation_space.shape is None:
            raise ValueError("NormalizeObservation wrapper requires the observation space to have a shape.")
        shape = env.observation_space.shape
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=shape, dtype=np.float32)
        self.obs_rms = RunningMeanStd(shape=self.observation_space.shape, dtype=self.observation_space.dtype)
        self.epsilon = epsilon
        self._update_running_mean = True

    def observation(self, observation: ObsType) -> WrapperObsType:
        """Adds ``observation`` to the statistics and returns it normalised."""
        if self._update_running_mean:
            self.obs_rms.update(np.array([observation]))
        return np.float32((observation - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + self.epsilon))


class MaxAndSkipObservation(Wrapper[WrapperObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Takes each action ``skip`` times and returns the elementwise maximum of the last two observations.

    The rewards are summed (as a float); the repetition stops early when the episode ends, and then the
    maximum is taken with what the frame buffer holds. This is stable-baselines3's ``MaxAndSkipEnv``.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import MaxAndSkipObservation
        >>> env = MaxAndSkipObservation(nbgym.make("CartPole-v1"), skip=2)
        >>> _ = env.reset(seed=42)
        >>> env.step(1)[1]
        2.0
    """

    def __init__(self, env: Env[ObsType, ActType], skip: int = 4):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observation space must have a shape.
            skip: How many times each action is taken (at least 2).

        Raises:
            TypeError: ``skip`` is not an int.
            ValueError: ``skip`` is below 2, or the observation space has no shape.
        """
        RecordConstructorArgs.__init__(self, skip=skip)
        Wrapper.__init__(self, env)

        if not np.issubdtype(type(skip), np.integer):
            raise TypeError(f"The skip is expected to be an integer, actual type: {type(skip)}")
        if skip < 2:
            raise ValueError(f"The skip value needs to be equal or greater than two, actual value: {skip}")
        if env.observation_space.shape is None:
            raise ValueError("The observation space must have the shape attribute.")

        self._skip = skip
        self._obs_buffer = np.zeros((2, *env.observation_space.shape), dtype=env.observation_space.dtype)

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Takes ``action`` up to ``skip`` times; returns the maximum of the last two frames and the summed reward."""
        total_reward = 0.0
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            if i == self._skip - 2:
                self._obs_buffer[0] = obs
            if i == self._skip - 1:
                self._obs_buffer[1] = obs
            total_reward += float(reward)
            if terminated or truncated:
                break
        return np.max(self._obs_buffer, axis=0), total_reward, terminated, truncated, info
