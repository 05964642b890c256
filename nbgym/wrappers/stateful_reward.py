"""Reward wrappers with a state: :class:`NormalizeReward`."""

from __future__ import annotations

from typing import Any, SupportsFloat

import numpy as np

from nbgym.core import ActType, Env, ObsType, Wrapper
from nbgym.error import InvalidBound
from nbgym.utils.record_constructor import RecordConstructorArgs
from nbgym.wrappers.utils import RunningMeanStd, RunningStatisticsSwitch

__all__ = ["NormalizeReward"]


def check_normalize_reward_args(gamma: float, epsilon: float) -> None:
    """Checks the arguments of a reward normalisation.

    Raises:
        InvalidBound: ``gamma`` is outside ``[0, 1]`` or ``epsilon`` is not positive.
    """
    # The discounted sum is multiplied by gamma every step: above 1 it diverges, below 0 it flips sign.
    if not 0 <= gamma <= 1:
        raise InvalidBound(f"`gamma` should be in the interval [0, 1]. Received {gamma}")
    # epsilon keeps the division away from zero; a non-positive one can make the rewards NaN.
    if epsilon <= 0:
        raise InvalidBound(f"`epsilon` should be strictly positive. Received {epsilon}")


class NormalizeReward(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs, RunningStatisticsSwitch):
    """Scales rewards so that their exponential moving average has an approximately fixed variance.

    Each step updates the discounted sum of rewards ``G = gamma * G * (1 - terminated) + reward``, adds
    ``G`` to the running statistics :attr:`return_rms`, and returns ``reward / sqrt(return_rms.var +
    epsilon)`` (the mean is not subtracted). Set :attr:`update_running_mean` to ``False`` to freeze the
    statistics, e.g. for evaluation. The batched counterpart is
    :class:`nbgym.wrappers.vector.NormalizeReward`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import NormalizeReward
        >>> env = NormalizeReward(nbgym.make("CartPole-v1"), gamma=0.99)
        >>> _ = env.reset(seed=42)
        >>> env.step(1)[1]
        np.float64(70.71421321062337)

    Attributes:
        return_rms: The running statistics of the discounted sums.
        discounted_reward: The discounted sum of rewards, an array of shape ``(1,)``.
        gamma: The discount factor.
        epsilon: The stability constant under the square root.
    """

    def __init__(self, env: Env[ObsType, ActType], gamma: float = 0.99, epsilon: float = 1e-8):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            gamma: The discount factor of the moving average, in ``[0, 1]``.
            epsilon: A positive constant added to the variance before the square root.

        Raises:
            InvalidBound: ``gamma`` is outside ``[0, 1]`` or ``epsilon`` is not positive.
        """
        check_normalize_reward_args(gamma, epsilon)
        RecordConstructorArgs.__init__(self, gamma=gamma, epsilon=epsilon)
        Wrapper.__init__(self, env)

        self.return_rms = RunningMeanStd(shape=())
        self.discounted_reward = np.array([0.0])
        self.gamma = gamma
        self.epsilon = epsilon
        self._update_running_mean = True

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment and returns the normalised reward (a ``np.float64``)."""
        obs, reward, terminated, truncated, info = super().step(action)
        # The running statistics are those of the discounted sums, not of the rewards: gymnasium keeps
        # this for backward compatibility, and so does nbgym.
        self.discounted_reward = self.discounted_reward * self.gamma * (1 - terminated) + float(reward)
        if self._update_running_mean:
            self.return_rms.update(self.discounted_reward)
        return obs, reward / np.sqrt(self.return_rms.var + self.epsilon), terminated, truncated, info
