"""The episode-statistics wrapper of vector environments: :class:`RecordEpisodeStatistics`."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import numpy as np

from nbgym.core import ActType, ObsType
from nbgym.logger import warn
from nbgym.vector._common import pop_reset_mask
from nbgym.vector.vector_env import AutoresetMode, VectorEnv, VectorWrapper
from nbgym.wrappers.vector import _kernels

__all__ = ["RecordEpisodeStatistics", "autoreset_mode_of"]


def autoreset_mode_of(env: VectorEnv, missing_message: str) -> AutoresetMode:
    """The autoreset mode in ``env.metadata``; when there is none, warns ``missing_message`` and assumes ``NEXT_STEP``.

    Raises:
        TypeError: ``env.metadata["autoreset_mode"]`` is not an :class:`AutoresetMode`.
    """
    if "autoreset_mode" not in env.metadata:
        warn(missing_message)
        return AutoresetMode.NEXT_STEP
    mode = env.metadata["autoreset_mode"]
    if not isinstance(mode, AutoresetMode):
        raise TypeError(f"Expected env.metadata['autoreset_mode'] to be an AutoresetMode, got {type(mode)}")
    return mode


class RecordEpisodeStatistics(VectorWrapper[ObsType, ActType, ObsType, ActType, np.ndarray]):
    """Adds the return, length and duration of the episodes that end at a step to that step's info.

    When sub-environments finish an episode, ``info[stats_key]`` is ``{"r": returns, "l": lengths,
    "t": seconds}`` (arrays over the sub-environments, 0 where no episode ended) and
    ``info["_" + stats_key]`` marks the sub-environments whose episode ended. The last
    ``buffer_length`` episodes are also kept in :attr:`return_queue`, :attr:`length_queue` and
    :attr:`time_queue`. The autoreset mode of the environment decides which steps count: in
    ``NEXT_STEP`` (and ``DISABLED``) mode the autoreset step after an episode does not count, in
    ``SAME_STEP`` mode every step does.

    One compiled pass per step updates the statistics of all sub-environments, with the same values
    and dtypes as gymnasium's wrapper (only the wall-clock times differ).

    Example:
        >>> import numpy as np
        >>> import nbgym
        >>> from nbgym.wrappers.vector import RecordEpisodeStatistics
        >>> envs = RecordEpisodeStatistics(nbgym.make_vec("CartPole-v1", num_envs=3))
        >>> _ = envs.reset(seed=123)
        >>> for _ in range(20):
        ...     infos = envs.step(np.ones(3, dtype=np.int64))[-1]
        ...     if "episode" in infos:
        ...         break
        >>> infos["_episode"], infos["episode"]["l"]
        (array([ True, False,  True]), array([9, 0, 9]))

    Attributes:
        episode_count: The number of finished episodes.
        episode_returns: The return of each sub-environment's current episode (float64).
        episode_lengths: The length of each sub-environment's current episode (int64).
        episode_start_times: The ``time.perf_counter()`` at which each current episode started.
        prev_dones: Which sub-environments ended an episode at the last step.
        return_queue: The returns of the latest episodes.
        length_queue: The lengths of the latest episodes.
        time_queue: The durations (seconds) of the latest episodes.
    """

    def __init__(
        self, env: VectorEnv[ObsType, ActType, np.ndarray], buffer_length: int = 100, stats_key: str = "episode"
    ):
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            buffer_length: How many episodes the queues keep.
            stats_key: The info key of the statistics.

        Raises:
            TypeError: ``env.metadata["autoreset_mode"]`` is not an :class:`AutoresetMode`.
        """
        super().__init__(env)
        self._stats_key = stats_key
        self._autoreset_mode = autoreset_mode_of(
            self.env,
            f"{self} is missing `autoreset_mode` tag in its metadata, therefore, `RecordEpisodeStatistics` is "
            "assuming that the environment uses `AutoresetMode.NEXT_STEP`. See "
            "`https://farama.org/Vector-Autoreset-Mode` for more information on autoreset modes.",
        )

        self._num_envs = self.num_envs
        self.episode_count: int = 0
        self._reset_statistics()
        self.time_queue: deque[np.float64] = deque(maxlen=buffer_length)
        self.return_queue: deque[np.float64] = deque(maxlen=buffer_length)
        self.length_queue: deque[np.int64] = deque(maxlen=buffer_length)

    def _reset_statistics(self) -> None:
        self.episode_start_times = np.full(self.num_envs, time.perf_counter())
        self.episode_returns = np.zeros(self.num_envs)
        self.episode_lengths = np.zeros(self.num_envs, dtype=int)
        self.prev_dones = np.zeros(self.num_envs, dtype=bool)

    def reset(
        self, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment and the statistics of the current episodes.

        Raises:
            TypeError, ValueError: ``options["reset_mask"]`` is left in ``options`` by the environment
                and is not a valid mask.
        """
        obs, info = super().reset(seed=seed, options=options)
        # The vector envs take the mask out of `options`: when one did, every sub-environment's
        # statistics restart (gymnasium's behaviour); a mask left behind resets only its envs.
        reset_mask = pop_reset_mask(options, self.num_envs)
        if reset_mask is not None:
            self.episode_start_times[reset_mask] = time.perf_counter()
            self.episode_returns[reset_mask] = 0
            self.episode_lengths[reset_mask] = 0
            self.prev_dones[reset_mask] = False
        else:
            self._reset_statistics()
        return obs, info

    def step(self, actions: ActType) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Steps the environment and records the statistics of the episodes that end.

        Raises:
            AssertionError: The environment's info is not a dict.
            ValueError: The info already holds the statistics key.
        """
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        assert isinstance(infos, dict), (
            f"`vector.RecordEpisodeStatistics` requires `info` type to be `dict`, its actual type is {type(infos)}. "
            "This may be due to usage of other wrappers in the wrong order."
        )

        same_step = self._autoreset_mode == AutoresetMode.SAME_STEP
        num_envs = self._num_envs
        dones = np.empty(num_envs, dtype=bool)
        ended = np.empty(num_envs, dtype=np.intp)
        returns, times = np.empty(num_envs), np.empty(num_envs)
        lengths = np.empty(num_envs, dtype=self.episode_lengths.dtype)
        num_dones = _kernels.episode_statistics_step(
            self.episode_returns,
            self.episode_lengths,
            self.episode_start_times,
            self.prev_dones,
            np.asarray(rewards),
            np.asarray(terminations),
            np.asarray(truncations),
            same_step,
            time.perf_counter(),
            dones,
            returns,
            lengths,
            times,
            ended,
        )
        self.prev_dones = dones

        if num_dones:
            if self._stats_key in infos or f"_{self._stats_key}" in infos:
                raise ValueError(
                    f"Attempted to add episode stats with key '{self._stats_key}' but this key already exists in "
                    f"info: {list(infos.keys())}"
                )
            infos[self._stats_key] = {"r": returns, "l": lengths, "t": times}
            infos[f"_{self._stats_key}"] = dones

            # A count of numpy's integer type, as `np.sum(dones)` gives in gymnasium.
            self.episode_count += np.int64(num_dones)
            # Only the last `maxlen` episodes would stay in the queues anyway.
            maxlen = self.return_queue.maxlen
            ended = ended[num_dones - min(num_dones, maxlen) if maxlen is not None else 0 : num_dones]
            self.time_queue.extend(times[ended])
            self.return_queue.extend(self.episode_returns[ended])
            self.length_queue.extend(self.episode_lengths[ended])

            if same_step:
                # The ended sub-environments were reset within this step: their next episode starts now.
                self.episode_returns[dones] = 0
                self.episode_lengths[dones] = 0
                self.episode_start_times[dones] = time.perf_counter()

        return observations, rewards, terminations, truncations, infos
