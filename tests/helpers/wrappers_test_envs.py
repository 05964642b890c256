"""Environments and rollout helpers shared by the differential tests of the nbgym wrappers.

Each environment is written once, as a function of the library module (``gymnasium`` or ``nbgym``), so
that a wrapper of each library runs over the very same environment code.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
from types import ModuleType
from typing import Any, Callable

import numpy as np
from helpers.core_test_envs import assert_data_equal, normalise


HAS_CV2 = importlib.util.find_spec("cv2") is not None
"""ResizeObservation needs opencv, as gymnasium's does."""

# Observation/action spaces of the test environment, built from a library's `spaces` module.
SPACES: dict[str, Callable[[Any], Any]] = {
    "box": lambda s: s.Box(-2.0, 3.0, shape=(3,), dtype=np.float32),
    "box64": lambda s: s.Box(np.array([-1.0, 0.5, -np.inf]), np.array([1.0, 4.0, np.inf]), dtype=np.float64),
    "box1": lambda s: s.Box(-1.0, 1.0, shape=(1,), dtype=np.float32),
    "scalar": lambda s: s.Box(-1.0, 1.0, shape=(), dtype=np.float32),
    "box2d": lambda s: s.Box(-1.0, 1.0, shape=(2, 3), dtype=np.float32),
    "box_int": lambda s: s.Box(0, 10, shape=(4,), dtype=np.int64),
    "image": lambda s: s.Box(0, 255, shape=(12, 10, 3), dtype=np.uint8),
    "gray_image": lambda s: s.Box(0, 255, shape=(12, 10), dtype=np.uint8),
    "discrete": lambda s: s.Discrete(5, start=-2),
    "multidiscrete": lambda s: s.MultiDiscrete([3, 4, 2], start=[0, 1, -1]),
    "multibinary": lambda s: s.MultiBinary(4),
    "dict": lambda s: s.Dict(
        {"position": s.Box(-1.0, 1.0, shape=(2,), dtype=np.float32), "gear": s.Discrete(3), "flags": s.MultiBinary(2)}
    ),
    "tuple": lambda s: s.Tuple((s.Box(0, 5, shape=(2,), dtype=np.int32), s.Discrete(4), s.Box(-1.0, 1.0, (1,)))),
}


@functools.cache
def space_env(lib: ModuleType) -> type:
    """A random environment of ``lib`` with any observation and action space (keys of :data:`SPACES`).

    Observations are samples of the observation space (its generator seeded from ``np_random`` at each
    reset); rewards are Python floats drawn from ``np_random``; episodes terminate at random. The info
    holds a copy of the action the environment received, so that action wrappers can be compared. With
    ``render_mode="rgb_array"`` it renders a small frame that depends on the last observation.
    """

    class SpaceEnv(lib.Env):
        metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

        def __init__(
            self,
            obs: str = "box",
            act: str = "box",
            render_mode: str | None = None,
            end_probability: float = 0.08,
            frame_shape: tuple[int, int] = (16, 20),
        ) -> None:
            self.observation_space = SPACES[obs](lib.spaces)
            self.action_space = SPACES[act](lib.spaces)
            self.render_mode = render_mode
            self.end_probability = end_probability
            self.frame_shape = frame_shape
            self._frame_seed = 0

        def _observation(self) -> Any:
            self._frame_seed = int(self.np_random.integers(2**31))
            self.observation_space.seed(self._frame_seed)
            return self.observation_space.sample()

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
            super().reset(seed=seed)
            return self._observation(), {"reset": True}

        def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
            reward = float(self.np_random.normal() * 3.0)
            terminated = bool(self.np_random.random() < self.end_probability)
            return self._observation(), reward, terminated, False, {"action": np.array(action, copy=True)}

        def render(self) -> np.ndarray | None:
            if self.render_mode != "rgb_array":
                return None
            return np.random.default_rng(self._frame_seed).integers(0, 256, size=(*self.frame_shape, 3), dtype=np.uint8)

    return SpaceEnv


def make_env(lib: ModuleType, env_id: str = "space", **kwargs: Any) -> Any:
    """The base environment of a test: ``"space"`` (:func:`space_env`, with ``kwargs``) or a registered id."""
    if env_id == "space":
        return space_env(lib)(**kwargs)
    return lib.make(env_id, **kwargs)


def assert_spaces_equal(space_1: Any, space_2: Any) -> None:
    """Asserts that an nbgym space and a gymnasium space are the same (type name, repr, dtype, shape)."""
    assert type(space_1).__name__ == type(space_2).__name__
    assert normalise(str(space_1)) == normalise(str(space_2))
    assert space_1.dtype == space_2.dtype
    assert space_1.shape == space_2.shape


def sample_actions(action_space: Any, seed: int, steps: int) -> list[Any]:
    """``steps`` samples of ``action_space`` (seeded with ``seed``)."""
    action_space.seed(seed)
    return [action_space.sample() for _ in range(steps)]


def rollout(env: Any, seed: int, actions: list[Any]) -> list[Any]:
    """Resets ``env`` with ``seed`` and takes (copies of) ``actions``, resetting (unseeded) when an episode
    ends; returns every output."""
    outputs: list[Any] = [env.reset(seed=seed)]
    for action in actions:
        result = env.step(copy.deepcopy(action))
        outputs.append(result)
        if result[2] or result[3]:
            outputs.append(env.reset())
    return outputs


def assert_same(data_1: Any, data_2: Any) -> None:
    """:func:`core_test_envs.assert_data_equal`, also for object arrays (compared element by element)."""
    if isinstance(data_1, np.ndarray) and data_1.dtype == object:
        assert isinstance(data_2, np.ndarray) and data_2.dtype == object and data_1.shape == data_2.shape
        for item_1, item_2 in zip(data_1.ravel(), data_2.ravel(), strict=True):
            assert_same(item_1, item_2)
    elif isinstance(data_1, dict):
        assert type(data_1) is type(data_2) and list(data_1) == list(data_2), (data_1, data_2)
        for key in data_1:
            assert_same(data_1[key], data_2[key])
    elif isinstance(data_1, (tuple, list)):
        assert type(data_1) is type(data_2) and len(data_1) == len(data_2)
        for item_1, item_2 in zip(data_1, data_2, strict=True):
            assert_same(item_1, item_2)
    else:
        assert_data_equal(data_1, data_2)


def assert_outputs_equal(outputs_1: list[Any], outputs_2: list[Any]) -> None:
    """Asserts that two rollouts returned the same data, step by step."""
    assert len(outputs_1) == len(outputs_2)
    for step, (output_1, output_2) in enumerate(zip(outputs_1, outputs_2, strict=True)):
        try:
            assert_same(output_1, output_2)
        except AssertionError as e:
            raise AssertionError(f"outputs differ at output {step}: {output_1!r} != {output_2!r}") from e
