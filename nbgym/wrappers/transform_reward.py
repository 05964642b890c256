"""Reward wrappers that transform each reward with a function of it alone.

* :class:`TransformReward` - applies a function to the reward.
* :class:`ClipReward` - clips the reward between a lower and an upper bound.

Both have batched counterparts in :mod:`nbgym.wrappers.vector`.
"""

from __future__ import annotations

from typing import Any, Callable, SupportsFloat

import numpy as np

from nbgym.core import ActType, Env, ObsType, RewardWrapper
from nbgym.error import InvalidBound
from nbgym.utils.record_constructor import RecordConstructorArgs

__all__ = ["TransformReward", "ClipReward"]


class TransformReward(RewardWrapper[ObsType, ActType], RecordConstructorArgs):
    """Applies ``func`` to the reward of every ``step``.

    The batched counterpart is :class:`nbgym.wrappers.vector.TransformReward`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import TransformReward
        >>> env = TransformReward(nbgym.make("CartPole-v1"), lambda r: 2 * r + 1)
        >>> _ = env.reset(seed=42)
        >>> env.step(1)[1]
        3.0
    """

    def __init__(self, env: Env[ObsType, ActType], func: Callable[[SupportsFloat], SupportsFloat]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            func: The function applied to each reward.
        """
        RecordConstructorArgs.__init__(self, func=func)
        RewardWrapper.__init__(self, env)
        self.func = func

    def reward(self, reward: SupportsFloat) -> SupportsFloat:
        """Returns ``func(reward)``."""
        return self.func(reward)


def check_reward_bounds(min_reward: Any, max_reward: Any) -> None:
    """Checks the bounds of a reward clipping.

    Raises:
        InvalidBound: Both bounds are ``None``, or ``min_reward > max_reward`` somewhere.
    """
    if min_reward is None and max_reward is None:
        raise InvalidBound("Both `min_reward` and `max_reward` cannot be None")
    if min_reward is not None and max_reward is not None and np.any(max_reward - min_reward < 0):
        raise InvalidBound(f"Min reward ({min_reward}) must be smaller than max reward ({max_reward})")


class ClipReward(TransformReward[ObsType, ActType], RecordConstructorArgs):
    """Clips every reward into ``[min_reward, max_reward]`` (a ``None`` bound does not clip).

    The clipped reward is a numpy value (``np.clip``'s result). The batched counterpart is
    :class:`nbgym.wrappers.vector.ClipReward`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import ClipReward
        >>> env = ClipReward(nbgym.make("CartPole-v1"), 0, 0.5)
        >>> _ = env.reset(seed=42)
        >>> env.step(1)[1]
        np.float64(0.5)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        min_reward: float | np.ndarray | None = None,
        max_reward: float | np.ndarray | None = None,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            min_reward: The lower bound, or ``None`` for none.
            max_reward: The upper bound, or ``None`` for none.

        Raises:
            InvalidBound: Both bounds are ``None``, or ``min_reward > max_reward``.
        """
        check_reward_bounds(min_reward, max_reward)
        RecordConstructorArgs.__init__(self, min_reward=min_reward, max_reward=max_reward)
        TransformReward.__init__(self, env=env, func=lambda reward: np.clip(reward, min_reward, max_reward))
