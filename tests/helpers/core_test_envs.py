"""Environments and helpers shared by the differential tests of nbgym.core, nbgym.utils and nbgym.wrappers.common.

Each environment is defined once, as a function of the library module (``gymnasium`` or ``nbgym``), so
that both libraries run the very same code and their outcomes can be compared.
"""

from __future__ import annotations

import functools
import re
import warnings
from types import ModuleType
from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium.envs.registration import EnvSpec as GymEnvSpec

import nbgym
from nbgym.registration import EnvSpec as NbEnvSpec

ENV_SPECS = {gymnasium: GymEnvSpec, nbgym: NbEnvSpec}
"""Each library's ``EnvSpec``."""


@functools.cache
def grid_world(lib: ModuleType) -> type:
    """The GridWorld environment of gymnasium's "create a custom environment" tutorial, for ``lib``.

    Rendering draws into an array (``rgb_array``) or a string (``ansi``) instead of a pygame window.
    """

    class GridWorldEnv(lib.Env):
        metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 4}

        def __init__(self, size: int = 5, render_mode: str | None = None):
            self.size = size
            self._agent_location = np.array([-1, -1], dtype=np.int32)
            self._target_location = np.array([-1, -1], dtype=np.int32)
            self.observation_space = lib.spaces.Dict(
                {
                    "agent": lib.spaces.Box(0, size - 1, shape=(2,), dtype=int),
                    "target": lib.spaces.Box(0, size - 1, shape=(2,), dtype=int),
                }
            )
            self.action_space = lib.spaces.Discrete(4)
            self._action_to_direction = {
                0: np.array([1, 0]),
                1: np.array([0, 1]),
                2: np.array([-1, 0]),
                3: np.array([0, -1]),
            }
            assert render_mode is None or render_mode in self.metadata["render_modes"]
            self.render_mode = render_mode

        def _get_obs(self) -> dict[str, np.ndarray]:
            return {"agent": self._agent_location.copy(), "target": self._target_location.copy()}

        def _get_info(self) -> dict[str, Any]:
            return {"distance": np.linalg.norm(self._agent_location - self._target_location, ord=1)}

        def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
            super().reset(seed=seed)
            self._agent_location = self.np_random.integers(0, self.size, size=2, dtype=int)
            self._target_location = self._agent_location
            while np.array_equal(self._target_location, self._agent_location):
                self._target_location = self.np_random.integers(0, self.size, size=2, dtype=int)
            return self._get_obs(), self._get_info()

        def step(self, action: int):
            direction = self._action_to_direction[action]
            self._agent_location = np.clip(self._agent_location + direction, 0, self.size - 1)
            terminated = np.array_equal(self._agent_location, self._target_location)
            reward = 1 if terminated else 0
            return self._get_obs(), reward, terminated, False, self._get_info()

        def render(self):
            grid = np.zeros((self.size, self.size), dtype=np.uint8)
            grid[tuple(self._target_location)] = 1
            grid[tuple(self._agent_location)] = 2
            if self.render_mode == "rgb_array":
                colours = np.array([[255, 255, 255], [255, 0, 0], [0, 0, 255]], dtype=np.uint8)
                return np.repeat(np.repeat(colours[grid], 4, axis=0), 4, axis=1)
            if self.render_mode == "ansi":
                return "\n".join("".join(".TA"[cell] for cell in row) for row in grid)
            return None

    return GridWorldEnv


def normalise(text: str) -> str:
    """gymnasium's text with its own name replaced by nbgym's, where nbgym names itself instead."""
    text = re.sub(r"<class 'gymnasium\.spaces\.\w+\.(\w+)'>", r"<class 'nbgym.spaces.\1'>", text)
    return re.sub(r"gymnasium|Gymnasium", "nbgym", text)


def exception_outcome(e: BaseException) -> tuple[str, str]:
    """An exception as ``(type name, normalised message)``; both libraries' error classes share names."""
    return type(e).__name__, normalise(str(e))


def warning_messages(caught: list[warnings.WarningMessage]) -> list[tuple[str, str]]:
    """Caught warnings as ``(category name, normalised message)``."""
    return [(w.category.__name__, normalise(str(w.message))) for w in caught]


def outcome(call: Callable[[], Any]) -> tuple[tuple[str, str] | None, list[tuple[str, str]]]:
    """The exception (if any) that ``call`` raised, and the warnings it gave, both normalised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            raised = None
        except Exception as e:  # noqa: BLE001 - any exception is an outcome to compare
            raised = exception_outcome(e)
    return raised, warning_messages(caught)


def assert_data_equal(data_1: Any, data_2: Any) -> None:
    """Asserts that two nested observations/infos are equal exactly, types and dtypes included."""
    assert type(data_1) is type(data_2), (type(data_1), type(data_2))
    if isinstance(data_1, dict):
        assert list(data_1) == list(data_2)
        for key in data_1:
            assert_data_equal(data_1[key], data_2[key])
    elif isinstance(data_1, (tuple, list)):
        assert len(data_1) == len(data_2)
        for item_1, item_2 in zip(data_1, data_2, strict=True):
            assert_data_equal(item_1, item_2)
    elif isinstance(data_1, np.ndarray):
        assert data_1.dtype == data_2.dtype
        np.testing.assert_array_equal(data_1, data_2)
    else:
        assert data_1 == data_2 or (data_1 != data_1 and data_2 != data_2), (data_1, data_2)
