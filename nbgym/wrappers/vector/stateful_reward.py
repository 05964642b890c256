"""Reward wrappers of vector environments with a state: :class:`NormalizeReward`."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.core import ActType, ObsType
from nbgym.utils.record_constructor import RecordConstructorArgs
from nbgym.vector.vector_env import AutoresetMode, VectorEnv, VectorWrapper
from nbgym.wrappers.stateful_reward import check_normalize_reward_args
from nbgym.wrappers.utils import RunningMeanStd, RunningStatisticsSwitch
from nbgym.wrappers.vector import _kernels

__all__ = ["NormalizeReward"]


class NormalizeReward(
    VectorWrapper[ObsType, ActType, ObsType, ActType, np.ndarray], RecordConstructorArgs, RunningStatisticsSwitch
):
    """Scales rewards so that their exponential moving average has an approximately fixed variance.

    Each sub-environment keeps a float32 discounted return ``G = gamma * G * (1 - terminated) + reward``
    (in :attr:`accumulated_reward`); the returns of the sub-environments that were not autoresetting at
    this step (all of them in ``SAME_STEP`` mode) are added to :attr:`return_rms`, and every reward is
    divided by ``sqrt(return_rms.var + epsilon)``. Set :attr:`update_running_mean` to ``False`` to
    freeze the statistics. One compiled pass does the whole step, with gymnasium's exact arithmetic.

    Example:
        >>> import numpy as np
        >>> import nbgym
        >>> from nbgym.wrappers.vector import NormalizeReward
        >>> envs = NormalizeReward(nbgym.make_vec("CartPole-v1", num_envs=3))
        >>> _ = envs.reset(seed=123)
        >>> envs.step(np.ones(3, dtype=np.int64))[1]
        array([122.46836374, 122.46836374, 122.46836374])

    Attributes:
        return_rms: The running statistics of the discounted returns.
        accumulated_reward: The discounted return of each sub-environment (float32).
        gamma: The discount factor.
        epsilon: The stability constant under the square root.
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, np.ndarray], gamma: float = 0.99, epsilon: float = 1e-8):
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            gamma: The discount factor of the moving average, in ``[0, 1]``.
            epsilon: A positive constant added to the variance before the square root.

        Raises:
            InvalidBound: ``gamma`` is outside ``[0, 1]`` or ``epsilon`` is not positive.
        """
        check_normalize_reward_args(gamma, epsilon)
        RecordConstructorArgs.__init__(self, gamma=gamma, epsilon=epsilon)
        VectorWrapper.__init__(self, env)

        self.return_rms = RunningMeanStd(shape=())
        self.accumulated_reward = np.zeros((self.num_envs,), dtype=np.float32)
        self.gamma = gamma
        self.epsilon = epsilon
        self._update_running_mean = True
        self._prev_dones = np.zeros((self.num_envs,), dtype=np.float32)
        self._autoreset_mode = self.env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        self._active_returns = np.empty(self.num_envs, dtype=np.float32)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment and every sub-environment's discounted return (even under a reset mask)."""
        self.accumulated_reward[:] = 0
        self._prev_dones[:] = 0
        return super().reset(seed=seed, options=options)

    def step(self, actions: ActType) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Steps the environment and returns the normalised rewards (float64)."""
        obs, rewards, terminated, truncated, info = super().step(actions)
        rewards, terminated, truncated = np.asarray(rewards), np.asarray(terminated), np.asarray(truncated)
        if not self._fast_path_applies(rewards):
            return obs, self._normalize_with_numpy(rewards, terminated, truncated), terminated, truncated, info

        rms = self.return_rms
        normalized = np.empty(rewards.shape[0])
        new_prev_dones = np.empty(rewards.shape[0], dtype=np.float32)
        updated, mean, var, count = _kernels.normalize_rewards(
            self.accumulated_reward,
            self._prev_dones,
            rewards,
            terminated,
            truncated,
            self.gamma,
            self._autoreset_mode == AutoresetMode.SAME_STEP,
            self._update_running_mean,
            float(rms.mean),
            float(rms.var),
            rms.count,
            float(self.epsilon),
            self._active_returns,
            normalized,
            new_prev_dones,
        )
        if updated:
            # gymnasium's update turns the 0-d arrays into numpy float64 scalars.
            rms.mean, rms.var, rms.count = np.float64(mean), np.float64(var), count
        self._prev_dones = new_prev_dones
        return obs, normalized, terminated, truncated, info

    def _fast_path_applies(self, rewards: np.ndarray) -> bool:
        """Whether the compiled kernel computes exactly what numpy would: real rewards, float64 statistics
        and Python-number parameters (numpy scalars would change the dtypes)."""
        rms = self.return_rms
        return (
            rewards.shape == self.accumulated_reward.shape
            and rewards.dtype.kind in "fiub"
            and rewards.dtype.itemsize <= 8
            and np.asarray(rms.mean).dtype == np.float64
            and np.asarray(rms.var).dtype == np.float64
            and np.ndim(rms.mean) == 0
            and np.ndim(rms.var) == 0
            and type(rms.count) is float
            and type(self.gamma) in (float, int)
            and type(self.epsilon) in (float, int)
            and self.accumulated_reward.dtype == np.float32
            and self.accumulated_reward.ndim == 1
        )

    def _normalize_with_numpy(self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> np.ndarray:
        """The step's normalisation with numpy, for inputs the kernel does not handle."""
        if self._autoreset_mode == AutoresetMode.SAME_STEP:
            active = np.ones((self.num_envs,), dtype=bool)
        else:
            active = ~self._prev_dones.astype(bool)
        self.accumulated_reward[active] = (
            self.accumulated_reward[active] * self.gamma * (1 - terminated[active]) + rewards[active]
        )
        if self._update_running_mean and np.any(active):
            self.return_rms.update(self.accumulated_reward[active])
        self._prev_dones = np.logical_or(terminated, truncated).astype(np.float32)
        if self._autoreset_mode == AutoresetMode.SAME_STEP:
            self.accumulated_reward[self._prev_dones.astype(bool)] = 0
        return rewards / np.sqrt(self.return_rms.var + self.epsilon)

    def normalize(self, reward: float | np.floating | np.integer) -> np.float64:
        """Adds every sub-environment's discounted return to the statistics (unless frozen) and returns
        ``reward`` normalised."""
        if self._update_running_mean:
            self.return_rms.update(self.accumulated_reward)
        return reward / np.sqrt(self.return_rms.var + self.epsilon)
