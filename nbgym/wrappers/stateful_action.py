"""Action wrappers with a state: :class:`StickyAction` and :class:`RepeatAction`."""

from __future__ import annotations

from typing import Any, SupportsFloat

import numpy as np

from nbgym.core import ActionWrapper, ActType, Env, ObsType, Wrapper
from nbgym.error import InvalidBound, InvalidProbability
from nbgym.utils.record_constructor import RecordConstructorArgs

__all__ = ["StickyAction", "RepeatAction"]


class StickyAction(ActionWrapper[ObsType, ActType, ActType], RecordConstructorArgs):
    """With probability ``repeat_action_probability``, the previous action is taken again instead of the new one.

    This is the "sticky actions" of Machado et al., 2018 (section 5.2), extended to repeat the previous
    action for a number of steps drawn from ``repeat_action_duration``. The draws come from the
    environment's ``np_random`` (``uniform()`` each step that is not already repeating, then
    ``integers(low, high + 1)`` for the length of a new series of repeats), so they interleave with the
    environment's own draws exactly as in gymnasium.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import StickyAction
        >>> env = StickyAction(nbgym.make("CartPole-v1"), repeat_action_probability=0.9)
        >>> _ = env.reset(seed=123)
        >>> [env.step(a)[0][1].round(4) for a in (1, 0, 0, 0)]
        [np.float32(0.1509), np.float32(0.3464), np.float32(0.542), np.float32(0.3476)]

    Attributes:
        repeat_action_probability: The probability of starting a series of repeats.
        repeat_action_duration_range: The ``(low, high)`` bounds of the number of repeats of a series.
        last_action: The action taken at the previous step (``None`` after a reset).
        is_sticky_actions: Whether a series of repeats is under way.
        num_repeats: The length of the current series (0 when none).
        repeats_taken: The repeats taken so far in the current series.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        repeat_action_probability: float,
        repeat_action_duration: int | tuple[int, int] = 1,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            repeat_action_probability: The probability, in ``[0, 1)``, of repeating the previous action.
            repeat_action_duration: The number of steps a repeat lasts: an int, or a ``(low, high)`` tuple
                to draw it uniformly from (both ends included).

        Raises:
            InvalidProbability: ``repeat_action_probability`` is outside ``[0, 1)``.
            ValueError: ``repeat_action_duration`` is neither an int nor a pair, or below 1.
            InvalidBound: ``repeat_action_duration`` is a pair with ``low > high``.
        """
        if not 0 <= repeat_action_probability < 1:
            raise InvalidProbability(
                f"`repeat_action_probability` should be in the interval [0,1). Received {repeat_action_probability}"
            )
        # The constructor argument stays as given (it is what the spec records); the range is a pair.
        if isinstance(repeat_action_duration, int):
            duration_range: Any = (repeat_action_duration, repeat_action_duration)
        else:
            duration_range = repeat_action_duration
        if not isinstance(duration_range, tuple):
            raise ValueError(
                f"`repeat_action_duration` should be either an integer or a tuple. Received {duration_range}"
            )
        if len(duration_range) != 2:
            raise ValueError(
                f"`repeat_action_duration` should be a tuple or a list of two integers. Received {duration_range}"
            )
        if duration_range[0] > duration_range[1]:
            raise InvalidBound(f"`repeat_action_duration` is not a valid bound. Received {duration_range}")
        if np.any(np.array(duration_range) < 1):
            raise ValueError(f"`repeat_action_duration` should be larger or equal than 1. Received {duration_range}")

        RecordConstructorArgs.__init__(
            self,
            repeat_action_probability=repeat_action_probability,
            repeat_action_duration=repeat_action_duration,
        )
        ActionWrapper.__init__(self, env)

        self.repeat_action_probability = repeat_action_probability
        self.repeat_action_duration_range = duration_range

        self.last_action: ActType | None = None
        self.is_sticky_actions: bool = False
        self.num_repeats: int = 0
        self.repeats_taken: int = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment and forgets the previous action."""
        self.last_action = None
        self.is_sticky_actions = False
        self.num_repeats = 0
        self.repeats_taken = 0
        return super().reset(seed=seed, options=options)

    def action(self, action: ActType) -> ActType:
        """Returns the action to take: ``action``, or the previous one while repeating."""
        # The uniform draw is only made when no series is under way and there is a previous action.
        if self.is_sticky_actions or (
            self.last_action is not None and self.np_random.uniform() < self.repeat_action_probability
        ):
            if self.num_repeats == 0:
                low, high = self.repeat_action_duration_range
                self.num_repeats = self.np_random.integers(low, high + 1)
            action = self.last_action
            self.is_sticky_actions = True
            self.repeats_taken += 1

        if self.is_sticky_actions and self.num_repeats == self.repeats_taken:
            self.is_sticky_actions = False
            self.num_repeats = 0
            self.repeats_taken = 0

        self.last_action = action
        return action


class RepeatAction(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Takes each action ``num_repeats`` times, returning the last observation and the summed reward.

    The repetition stops early when the episode terminates or is truncated. Unlike
    :class:`StickyAction`, the repetition is deterministic and repeats the *current* action.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import RepeatAction
        >>> env = RepeatAction(nbgym.make("CartPole-v1"), num_repeats=4)
        >>> _ = env.reset(seed=42)
        >>> env.step(1)[1]
        4.0

    Attributes:
        num_repeats: How many times each action is taken.
    """

    def __init__(self, env: Env[ObsType, ActType], num_repeats: int):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            num_repeats: How many times each action is taken (at least 1).

        Raises:
            TypeError: ``num_repeats`` is not an int.
            ValueError: ``num_repeats`` is below 1.
        """
        if not np.issubdtype(type(num_repeats), np.integer):
            raise TypeError(f"The num_repeats is expected to be an integer, actual type: {type(num_repeats)}")
        if num_repeats < 1:
            raise ValueError(
                f"The num_repeats value needs to be equal or greater than one, actual value: {num_repeats}"
            )
        RecordConstructorArgs.__init__(self, num_repeats=num_repeats)
        Wrapper.__init__(self, env)
        self.num_repeats = num_repeats

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Takes ``action`` up to ``num_repeats`` times.

        Returns:
            The last step's observation, terminated, truncated and info, with the sum of the rewards
            (a float).
        """
        total_reward = 0.0
        for _ in range(self.num_repeats):
            obs, reward, terminated, truncated, info = self.env.step(action)
            total_reward += float(reward)
            if terminated or truncated:
                break
        return obs, total_reward, terminated, truncated, info
