"""Environments and comparison helpers shared by the differential tests of nbgym.vector.

Each environment class is written once, as a function of the library module (``gymnasium`` or
``nbgym``), so both libraries run the very same code and their vector envs can be compared exactly.
"""

from __future__ import annotations

import functools
import math
import os
import time
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import nbgym

OBS_KINDS = ("box", "discrete", "tuple", "dict")


def observation_space(lib: ModuleType, kind: str) -> Any:
    """The observation space of the toy environment of kind ``kind``, built from ``lib.spaces``."""
    spaces = lib.spaces
    if kind == "box":
        return spaces.Box(-2.0, 2.0, shape=(3,), dtype=np.float32)
    if kind == "discrete":
        return spaces.Discrete(5, start=-2)
    if kind == "tuple":
        return spaces.Tuple((spaces.Box(0, 10, shape=(2, 2), dtype=np.int16), spaces.Discrete(4)))
    if kind == "dict":
        return spaces.Dict(
            {"velocity": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float64), "flags": spaces.MultiBinary(3)}
        )
    if kind == "multidiscrete":
        return spaces.MultiDiscrete([[3, 4], [5, 2]], start=[[0, 1], [-1, 0]])
    raise ValueError(kind)


def _observation(kind: str, rng: np.random.Generator) -> Any:
    if kind == "box":
        return rng.uniform(-2.0, 2.0, size=3).astype(np.float32)
    if kind == "discrete":
        return np.int64(rng.integers(-2, 3))
    if kind == "tuple":
        return (rng.integers(0, 11, size=(2, 2)).astype(np.int16), np.int64(rng.integers(4)))
    if kind == "dict":
        return {"velocity": rng.uniform(-1.0, 1.0, size=2), "flags": rng.integers(0, 2, size=3).astype(np.int8)}
    if kind == "multidiscrete":
        return (rng.integers(0, [[3, 4], [5, 2]]) + np.array([[0, 1], [-1, 0]])).astype(np.int64)
    raise ValueError(kind)


@functools.cache
def toy_env_class(lib: ModuleType) -> type:
    """A small random environment for ``lib`` with every kind of info value.

    Episodes end at random (termination) or after ``3 + idx`` steps (truncation), so the
    sub-environments of a vector env end at different steps. The infos hold Python and numpy scalars,
    arrays, strings, nested dicts, and keys that only some sub-environments or steps have.
    """

    class ToyEnv(lib.Env):
        metadata = {"render_modes": ["rgb_array"], "render_fps": 7}

        def __init__(
            self,
            kind: str = "box",
            idx: int = 0,
            render_mode: str | None = None,
            action: str = "discrete",
            step_delay: float = 0.0,
            fail_on: str | None = None,
            reset_delay: float = 0.0,
        ) -> None:
            self.kind, self.idx, self.render_mode = kind, idx, render_mode
            self.step_delay, self.fail_on, self.reset_delay = step_delay, fail_on, reset_delay
            self.observation_space = observation_space(lib, kind)
            if action == "discrete":
                self.action_space = lib.spaces.Discrete(3)
            else:
                self.action_space = lib.spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
            self.steps = 0
            self.closed_count = 0
            self.log: list[Any] = []

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
            super().reset(seed=seed)
            if self.reset_delay:
                time.sleep(self.reset_delay)
            if self.fail_on == "reset":
                raise ValueError(f"Error in reset of env {self.idx}")
            self.steps = 0
            self.log.append(("reset", seed, None if options is None else sorted(options)))
            info: dict[str, Any] = {
                "draw": int(self.np_random.integers(100)),
                "scale": float(self.np_random.random()),
                "pair": self.np_random.normal(size=2),
                "nested": {"f32": np.float32(self.idx) / 3, "ok": True},
            }
            if options is not None and "extra" in options:
                info["extra"] = options["extra"]
            return _observation(self.kind, self.np_random), info

        def step(self, action: Any):
            if self.step_delay:
                time.sleep(self.step_delay)
            if self.steps == 1 and self.fail_on is not None:
                if self.fail_on == "step":
                    raise ValueError(f"Error in step of env {self.idx}")
                if self.fail_on == "unpicklable-error":

                    class LocalError(Exception):
                        pass

                    raise LocalError(f"local error of env {self.idx}")
                if self.fail_on == "unpicklable-info":
                    return _observation(self.kind, self.np_random), 0.0, False, False, {"f": lambda: None}
                if self.fail_on == "exit":
                    os._exit(3)
            self.steps += 1
            self.log.append(("step", np.asarray(action).tolist(), type(action).__name__))
            draw = float(self.np_random.random())
            reward: Any = (np.float32(draw), draw * 2, int(draw * 10))[self.steps % 3]
            terminated = draw < 0.12
            truncated = self.steps >= 3 + self.idx
            info: dict[str, Any] = {"step": self.steps, "draw": np.float64(draw), "name": f"env{self.idx}"}
            if self.idx % 2 == 0:
                info["even_only"] = np.int32(self.steps)
            if draw > 0.5:
                info["lucky"] = {"value": np.arange(self.steps % 3 + 2)[:2] * draw, "flag": np.bool_(draw > 0.75)}
            if self.steps % 2 == 0:
                info["half"] = [self.steps, "list"]
            return _observation(self.kind, self.np_random), reward, terminated, truncated, info

        def render(self):
            return np.full((2, 2, 3), self.idx * 10 + self.steps, dtype=np.uint8)

        def close(self):
            self.closed_count += 1

        def add(self, a: int, b: int = 0) -> tuple[int, int, int]:
            return self.idx, a + b, self.steps

        def pid(self) -> int:
            return os.getpid()

    return ToyEnv


@functools.cache
def different_space_env_class(lib: ModuleType) -> type:
    """An environment whose Box observation bounds depend on ``idx`` (for ``observation_mode="different"``)."""

    class BoundsEnv(lib.Env):
        def __init__(self, idx: int = 0, shape: tuple[int, ...] = (2,)) -> None:
            self.observation_space = lib.spaces.Box(-1.0 - idx, 1.0 + idx, shape=shape, dtype=np.float32)
            self.action_space = lib.spaces.Discrete(2)

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
            super().reset(seed=seed)
            return self._observation(), {}

        def step(self, action: Any):
            return self._observation(), 1.0, False, False, {}

        def _observation(self) -> np.ndarray:
            space = self.observation_space
            return self.np_random.uniform(space.low, space.high).astype(np.float32)

    return BoundsEnv


def env_fns(lib: ModuleType, num_envs: int, kind: str = "box", **kwargs: Any) -> list[Any]:
    """Functions that make ``num_envs`` toy environments of ``lib`` (sub-environment ``i`` has ``idx=i``)."""
    cls = toy_env_class(lib)
    return [functools.partial(cls, kind=kind, idx=i, **kwargs) for i in range(num_envs)]


def actions_for(lib_env: Any, rng: np.random.Generator) -> Any:
    """A batch of actions for the toy vector env (Discrete(3) or Box(2) actions), drawn from ``rng``."""
    space = lib_env.single_action_space
    if type(space).__name__ == "Discrete":
        return rng.integers(0, 3, size=lib_env.num_envs)
    return rng.uniform(-1, 1, size=(lib_env.num_envs, 2)).astype(np.float32)


def assert_same(expected: Any, actual: Any, path: str = "value") -> None:
    """Assert that ``actual`` (nbgym's) equals ``expected`` (gymnasium's) exactly: types, dtypes, keys, values."""
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), f"{path}: {type(actual)} is not an array"
        assert actual.dtype == expected.dtype, f"{path}: dtype {actual.dtype} != {expected.dtype}"
        assert actual.shape == expected.shape, f"{path}: shape {actual.shape} != {expected.shape}"
        if expected.dtype == object:
            for index in np.ndindex(expected.shape):
                assert_same(expected[index], actual[index], f"{path}[{index}]")
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=path)
        return
    assert type(actual) is type(expected), f"{path}: type {type(actual)} != {type(expected)}"
    if isinstance(expected, dict):
        assert list(actual) == list(expected), f"{path}: keys {list(actual)} != {list(expected)}"
        for key in expected:
            assert_same(expected[key], actual[key], f"{path}[{key!r}]")
    elif isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, f"{path}[{i}]")
    elif isinstance(expected, (float, np.floating)) and math.isnan(expected):
        assert math.isnan(actual), f"{path}: {actual} is not nan"
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def same_error(gym_call: Callable[[], Any], nb_call: Callable[[], Any]) -> BaseException:
    """Assert both calls raise the same exception type with the same message; return nbgym's exception."""
    with pytest.raises(Exception) as gym_info:
        gym_call()
    with pytest.raises(Exception) as nb_info:
        nb_call()
    assert type(nb_info.value).__name__ == type(gym_info.value).__name__
    assert str(nb_info.value) == str(gym_info.value)
    return nb_info.value


def sorted_keys(value: Any) -> Any:
    """``value`` with every dict's keys sorted (sync and async envs order ``final_obs``/``final_info`` differently)."""
    if isinstance(value, dict):
        return {key: sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, (tuple, list)):
        return type(value)(sorted_keys(item) for item in value)
    return value


def rollout(env: Any, seed: int, steps: int, action_seed: int) -> list[Any]:
    """Reset ``env`` with ``seed``, then step it ``steps`` times with actions drawn from ``action_seed``.

    In ``DISABLED`` autoreset mode, the sub-environments that ended are reset through a reset mask
    after each step. Returns every value the env returned, for comparison.
    """
    rng = np.random.default_rng(action_seed)
    outputs: list[Any] = [env.reset(seed=seed)]
    disabled = env.metadata["autoreset_mode"].value == "Disabled"
    for _ in range(steps):
        step = env.step(actions_for(env, rng))
        outputs.append(step)
        if disabled:
            ended = np.logical_or(step[2], step[3])
            if ended.any():
                outputs.append(env.reset(options={"reset_mask": ended}))
    return outputs


def queue_reporting_worker(
    index: int,
    env_fn: Any,
    pipe: Any,
    parent_pipe: Any,
    shared_memory: Any,
    error_queue: Any,
    autoreset_mode: Any,
    semaphore: Any,
) -> None:
    """A custom worker that reports errors through ``error_queue`` as gymnasium's workers do (no autoreset)."""
    parent_pipe.close()
    env = env_fn()
    try:
        while True:
            command, data = pipe.recv()
            if command == "_check_spaces":
                pipe.send(((True, True), True))
            elif command == "reset":
                pipe.send((env.reset(**data), True))
            elif command == "step":
                pipe.send((env.step(data), True))
            elif command == "close":
                pipe.send((None, True))
                break
            else:
                raise RuntimeError(f"unexpected command {command}")
    except Exception as e:  # noqa: BLE001 - reported to the main process
        error_queue.put((index, type(e), e, traceback.format_exc()))
        pipe.send((None, False))
    finally:
        env.close()


class CustomSpace(nbgym.spaces.Space):
    """A space type that the vector utilities know nothing about."""

    def sample(self, mask: Any = None, probability: Any = None) -> int:
        return 0

    def contains(self, x: Any) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CustomSpace)

    def __hash__(self) -> int:
        return hash(CustomSpace)


class CustomSpaceEnv(nbgym.Env):
    """An environment observing a :class:`CustomSpace` (which shared memory cannot hold)."""

    observation_space = CustomSpace()
    action_space = nbgym.spaces.Discrete(2)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        return 0, {}

    def step(self, action: Any) -> Any:
        return 0, 0.0, False, False, {}
