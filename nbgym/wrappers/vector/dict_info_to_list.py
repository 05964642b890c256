"""A vector wrapper that returns infos as a list with one dict per sub-environment."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.core import ActType, ObsType
from nbgym.vector.vector_env import ArrayType, VectorEnv, VectorWrapper

__all__ = ["DictInfoToList"]


class DictInfoToList(VectorWrapper[ObsType, ActType, ObsType, ActType, ArrayType]):
    """Converts the info of a vector environment from one dict of arrays to a list of dicts.

    Sub-environment ``i`` gets ``{k: infos[k][i]}`` for every key ``k`` whose mask ``_k`` is True
    at ``i`` (or that has no mask); nested dicts are converted the same way. Wrappers that add to
    the info (e.g. ``RecordEpisodeStatistics``) must be inside this one.

    Example:
        >>> import numpy as np
        >>> dict_info = {"k": np.array([0.0, 0.0, 0.5, 0.3]), "_k": np.array([False, False, True, True])}
        >>> # becomes [{}, {}, {"k": np.float64(0.5)}, {"k": np.float64(0.3)}]
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        """Wrap ``env``.

        Args:
            env: The vector environment to wrap.
        """
        super().__init__(env)

    def step(  # type: ignore[override]
        self, actions: ActType
    ) -> tuple[ObsType, ArrayType, ArrayType, ArrayType, list[dict[str, Any]]]:
        """Step the wrapped environment and convert its info to a list of dicts."""
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return observations, rewards, terminations, truncations, self._convert_info_to_list(infos)

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, list[dict[str, Any]]]:
        """Reset the wrapped environment and convert its info to a list of dicts."""
        observations, infos = self.env.reset(seed=seed, options=options)
        return observations, self._convert_info_to_list(infos)

    def _convert_info_to_list(self, vector_infos: dict[str, Any]) -> list[dict[str, Any]]:
        """Split a vector info into one dict per sub-environment.

        Args:
            vector_infos: The info of the vector environment: arrays (or nested dicts of them) over
                the sub-environments, with optional ``_key`` masks.

        Returns:
            The info of each sub-environment.

        Raises:
            AssertionError: If the info is not a dict, a value is neither a dict nor an array, or a
                value or mask does not have one entry per sub-environment.
        """
        if not isinstance(vector_infos, dict):
            raise AssertionError(f"Expects the vector info to be a dict, actual type is {type(vector_infos)}")
        num_envs = self.num_envs
        list_info: list[dict[str, Any]] = [{} for _ in range(num_envs)]

        for key, value in vector_infos.items():
            if key.startswith("_"):
                continue
            if isinstance(value, dict):
                per_env = self._convert_info_to_list(value)
                self._check_length(per_env, num_envs)
            else:
                if not isinstance(value, np.ndarray):
                    raise AssertionError(
                        f"Expects the info {key!r} to be a numpy array or a dict, actual type is {type(value)}"
                    )
                self._check_length(value, num_envs)
                per_env = value

            mask = vector_infos.get(f"_{key}")
            if mask is None:
                selected = range(num_envs)
            else:
                self._check_length(mask, num_envs)
                selected = [env_num for env_num, has_info in enumerate(mask) if has_info]
            for env_num in selected:
                list_info[env_num][key] = per_env[env_num]

        return list_info

    @staticmethod
    def _check_length(values: Any, num_envs: int) -> None:
        if len(values) != num_envs:
            raise AssertionError(
                f"Expects {values} to have length equal to the num-envs ({num_envs}), actual length is {len(values)}"
            )
