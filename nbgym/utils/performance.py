"""Throughput benchmarks of an environment's ``step``, construction and ``render``, for performance debugging."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:
    from nbgym.core import Env
    from nbgym.vector import VectorEnv


def _calls_per_second(call: Callable[[], int], target_duration: float) -> float:
    """Repeats ``call`` (which returns how many units it completed) for ``target_duration`` seconds.

    Returns:
        The units completed per second (the last call may run past ``target_duration``).
    """
    units = 0
    start = time.time()
    while True:
        units += call()
        end = time.time()
        if end - start > target_duration:
            return units / (end - start)


def benchmark_step(env: Env, target_duration: int = 5, seed: int | None = None) -> float:
    """Measures the steps per second of ``env`` with random actions, resetting at each episode end.

    Args:
        env: The environment to benchmark.
        target_duration: The benchmark's duration in seconds (the last step may run past it).
        seed: The seed of the first reset (the action space is not seeded).

    Returns:
        The average number of steps per second.
    """
    env.reset(seed=seed)
    env.action_space.sample()

    def step() -> int:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
        return 1

    return _calls_per_second(step, target_duration)


def benchmark_vector_step(env: VectorEnv, target_duration: int = 5, seed: int | None = None) -> float:
    """Measures the sub-environment steps per second of a vector environment with random actions.

    One step and reset run before the timing starts, so lazy initialization (e.g. compilation) is not
    counted. With ``AutoresetMode.NEXT_STEP`` the resetting steps of sub-environments are not counted;
    with ``AutoresetMode.DISABLED`` ended sub-environments are reset through ``reset_mask``.

    Args:
        env: The vector environment to benchmark.
        target_duration: The benchmark's duration in seconds (the last step may run past it).
        seed: The seed of the resets and of the action space.

    Returns:
        The number of individual environment steps per second.
    """
    from nbgym.vector import AutoresetMode

    env.action_space.seed(seed)
    env.reset(seed=seed)
    env.step(env.action_space.sample())
    env.reset(seed=seed)

    autoreset_mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    previous_done = np.zeros(env.num_envs, dtype=np.bool_)

    def step() -> int:
        nonlocal previous_done
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done = np.logical_or(terminated, truncated)
        if autoreset_mode == AutoresetMode.NEXT_STEP:
            # A sub-environment that ended on the previous step was only reset by this one.
            stepped = env.num_envs - int(np.count_nonzero(previous_done))
            previous_done = done
            return stepped
        if autoreset_mode == AutoresetMode.DISABLED and np.any(done):
            env.reset(options={"reset_mask": done})
        return env.num_envs

    return _calls_per_second(step, target_duration)


def benchmark_init(env_lambda: Callable[[], Env], target_duration: int = 5, seed: int | None = None) -> float:
    """Measures how many times per second an environment can be created and reset.

    Args:
        env_lambda: Creates the environment.
        target_duration: The benchmark's duration in seconds (the last creation may run past it).
        seed: The seed of each first reset.

    Returns:
        The number of creations (each with its first reset) per second.
    """

    def create() -> int:
        env_lambda().reset(seed=seed)
        return 1

    return _calls_per_second(create, target_duration)


def benchmark_render(env: Env, target_duration: int = 5) -> float:
    """Measures the renders per second of ``env`` (not meaningful for ``render_mode="human"``).

    Args:
        env: The environment to benchmark, created with a render mode.
        target_duration: The benchmark's duration in seconds (the last render may run past it).

    Returns:
        The number of renders per second.
    """

    def render() -> int:
        env.render()
        return 1

    return _calls_per_second(render, target_duration)
