"""Observation wrappers of vector environments with a state: :class:`NormalizeObservation`."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.core import ActType
from nbgym.logger import warn
from nbgym.spaces import Box
from nbgym.utils.record_constructor import RecordConstructorArgs
from nbgym.vector.utils import batch_space
from nbgym.vector.vector_env import ArrayType, AutoresetMode, VectorEnv, VectorObservationWrapper
from nbgym.wrappers.stateful_observation import check_epsilon
from nbgym.wrappers.utils import RunningMeanStd, RunningStatisticsSwitch
from nbgym.wrappers.vector import _kernels

__all__ = ["NormalizeObservation"]


class NormalizeObservation(
    VectorObservationWrapper[np.ndarray, ActType, np.ndarray, ArrayType], RecordConstructorArgs, RunningStatisticsSwitch
):
    """Normalises the batched observations to zero mean and unit variance with running statistics, as ``float32``.

    Each batch (of ``reset`` and ``step``) is added to :attr:`obs_rms`, then returned as
    ``float32((obs - mean) / sqrt(var + epsilon))``. Set :attr:`update_running_mean` to ``False`` to
    freeze the statistics. Only for ``NEXT_STEP`` autoreset, without partial resets (as gymnasium).

    For float32 observations, one compiled pass computes the batch moments, merges them and normalises,
    with numpy's exact arithmetic; other dtypes go through numpy.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers.vector import NormalizeObservation
        >>> envs = NormalizeObservation(nbgym.make_vec("CartPole-v1", num_envs=3))
        >>> obs, _ = envs.reset(seed=123)
        >>> obs.dtype, obs.shape
        (dtype('float32'), (3, 4))

    Attributes:
        obs_rms: The running statistics of the observations.
        epsilon: The stability constant under the square root.
    """

    def __init__(self, env: VectorEnv[np.ndarray, ActType, ArrayType], epsilon: float = 1e-8):
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; it must autoreset in ``NEXT_STEP`` mode.
            epsilon: A positive constant added to the variance before the square root.

        Raises:
            InvalidBound: ``epsilon`` is not positive.
            ValueError: The environment autoresets in another mode.
        """
        check_epsilon(epsilon)
        RecordConstructorArgs.__init__(self, epsilon=epsilon)
        VectorObservationWrapper.__init__(self, env)

        if "autoreset_mode" not in self.env.metadata:
            warn(
                f"{self} is missing `autoreset_mode` data. Assuming that the vector environment it follows the "
                "`NextStep` autoreset api or autoreset is disabled. Read https://farama.org/Vector-Autoreset-Mode "
                "for more details."
            )
        elif self.env.metadata["autoreset_mode"] not in {AutoresetMode.NEXT_STEP}:
            raise ValueError(
                f"Expected env.metadata['autoreset_mode'] to be AutoresetMode.NEXT_STEP, got "
                f"{self.env.metadata['autoreset_mode']}"
            )

        single_space = Box(low=-np.inf, high=np.inf, shape=self.single_observation_space.shape, dtype=np.float32)
        self.single_observation_space = single_space
        self.observation_space = batch_space(single_space, self.num_envs)
        self.obs_rms = RunningMeanStd(shape=single_space.shape, dtype=single_space.dtype)
        self.epsilon = epsilon
        self._update_running_mean = True

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Resets every sub-environment and normalises the observations.

        Raises:
            ValueError: ``options["reset_mask"]`` selects only some sub-environments.
        """
        if options is not None and "reset_mask" in options and not np.all(options["reset_mask"]):
            raise ValueError(
                "NormalizeObservation does not support partial resets. The 'reset_mask' must contain all True values."
            )
        return super().reset(seed=seed, options=options)

    def observations(self, observations: np.ndarray) -> np.ndarray:
        """Adds the batch to the statistics (unless frozen) and returns it normalised."""
        rms = self.obs_rms
        if self._fast_path_applies(observations):
            rows = observations.reshape(observations.shape[0], -1)
            out = np.empty(observations.shape, dtype=np.float32)
            mean, var, count = _kernels.normalize_observations_f32(
                rows,
                np.asarray(rms.mean).reshape(-1),
                np.asarray(rms.var).reshape(-1),
                rms.count,
                self.epsilon,
                self._update_running_mean,
                out.reshape(rows.shape),
            )
            if self._update_running_mean:
                shape = self.single_observation_space.shape
                # numpy's arithmetic on 0-d statistics gives scalars.
                rms.mean, rms.var = (mean[0], var[0]) if shape == () else (mean.reshape(shape), var.reshape(shape))
                rms.count = count
            return out
        if self._update_running_mean:
            rms.update(observations)
        return ((observations - rms.mean) / np.sqrt(rms.var + self.epsilon)).astype(np.float32)

    def _fast_path_applies(self, observations: Any) -> bool:
        """Whether the compiled kernel computes exactly what numpy would: float32 observations and
        statistics, and Python-number count and epsilon (numpy scalars would change the dtypes)."""
        rms = self.obs_rms
        shape = self.single_observation_space.shape
        return (
            isinstance(observations, np.ndarray)
            and observations.dtype == np.float32
            and observations.shape[1:] == shape
            and observations.shape[0] > 0
            and observations.flags.c_contiguous
            and isinstance(rms.mean, (np.ndarray, np.float32))
            and isinstance(rms.var, (np.ndarray, np.float32))
            and np.shape(rms.mean) == shape
            and np.shape(rms.var) == shape
            and rms.mean.dtype == np.float32
            and rms.var.dtype == np.float32
            and type(rms.count) is float
            and type(self.epsilon) in (float, int)
        )
