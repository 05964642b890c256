"""gymnasium's GridWorld tutorial environment, compiled with nbgym's engine, beside the same env in plain Python.

An agent and a target sit on a ``size`` x ``size`` grid; the agent moves right, up, left or down (never
off the grid) and the episode ends when it reaches the target (reward 1, else 0). Observations are a
``Dict`` of the agent's and the target's locations; the info gives their Manhattan distance.

``docs/custom_environments.md`` walks through this file. Run it to check the compiled env against
the plain one (same seeds and actions, same results) and to compare their speeds:

    python examples/grid_world.py --num-envs 1024 --steps 200
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import nbgym
from nbgym import spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, rng, vector_env_class

# ---------------------------------------------------------------------------------------- the compiled env

# One sub-environment's state row: the agent's and the target's (x, y).
AGENT_X, AGENT_Y, TARGET_X, TARGET_Y = 0, 1, 2, 3


def _reset(params, state, i, stream, aux):
    state[i, AGENT_X] = rng.integers(stream, i, 0, params.size)
    state[i, AGENT_Y] = rng.integers(stream, i, 0, params.size)
    state[i, TARGET_X] = state[i, AGENT_X]
    state[i, TARGET_Y] = state[i, AGENT_Y]
    while state[i, TARGET_X] == state[i, AGENT_X] and state[i, TARGET_Y] == state[i, AGENT_Y]:
        state[i, TARGET_X] = rng.integers(stream, i, 0, params.size)
        state[i, TARGET_Y] = rng.integers(stream, i, 0, params.size)
    aux[i, 0] = abs(state[i, AGENT_X] - state[i, TARGET_X]) + abs(state[i, AGENT_Y] - state[i, TARGET_Y])


def _step(params, state, i, actions, stream, aux):
    action = actions[i]
    # 0: right, 1: up, 2: left, 3: down.
    dx = 1 if action == 0 else (-1 if action == 2 else 0)
    dy = 1 if action == 1 else (-1 if action == 3 else 0)
    state[i, AGENT_X] = min(max(state[i, AGENT_X] + dx, 0), params.size - 1)
    state[i, AGENT_Y] = min(max(state[i, AGENT_Y] + dy, 0), params.size - 1)
    distance = abs(state[i, AGENT_X] - state[i, TARGET_X]) + abs(state[i, AGENT_Y] - state[i, TARGET_Y])
    aux[i, 0] = distance
    terminated = distance == 0
    return (1.0 if terminated else 0.0), terminated


def _observe(params, state, i, obs):
    for k in range(4):
        obs[i, k] = state[i, k]


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 4


PHYSICS = Physics(
    "GridWorld",
    params=[("size", np.int64)],
    state=(4, np.int64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    aux_width=1,
    observation=((4,), np.int64),  # the Dict's two locations, side by side in one buffer row
)


def _spaces(size: int) -> tuple[spaces.Dict, spaces.Discrete]:
    location = spaces.Box(0, size - 1, shape=(2,), dtype=np.int64)
    return spaces.Dict({"agent": location, "target": location}), spaces.Discrete(4)


class GridWorldEnv(KernelEnv):
    """Reach the target on a grid (gymnasium's custom-environment tutorial), compiled."""

    metadata = {"render_modes": []}
    physics = PHYSICS
    info_keys = ("distance",)

    @declares_arguments
    def __init__(self, size: int = 5, render_mode: str | None = None) -> None:
        """The env's arguments: the vector class takes them too."""

    def _configure(self, arguments: Any) -> np.ndarray:
        # `size` is a field of the parameter record: `env.size` reads it (and writing it changes the dynamics).
        return PHYSICS.new_params(size=arguments.size)

    def _single_spaces(self) -> tuple[spaces.Dict, spaces.Discrete]:
        return _spaces(self.size)

    def _observation(self) -> dict[str, np.ndarray]:
        row = self._batch.obs[0]
        return {"agent": row[:2].copy(), "target": row[2:].copy()}

    def _reward(self) -> int:
        return int(self._batch.rewards.item(0))


class GridWorldVectorEnv(vector_env_class(GridWorldEnv)):
    """GridWorld's compiled vector env: observations batched as gymnasium batches a ``Dict``."""

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs, infos = super().reset(**kwargs)
        return _as_dict(obs), infos

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, terminations, truncations, infos = super().step(actions)
        return _as_dict(obs), rewards, terminations, truncations, infos

    def _final_observation(self, row: np.ndarray) -> dict[str, np.ndarray]:
        return {"agent": row[:2], "target": row[2:]}


def _as_dict(obs: np.ndarray) -> dict[str, np.ndarray]:
    return {"agent": obs[:, :2].copy(), "target": obs[:, 2:].copy()}


# ---------------------------------------------------------------------------------- the same env, in Python


class PythonGridWorldEnv(nbgym.Env):
    """The tutorial's GridWorld in plain Python (numpy arithmetic, ``np_random`` draws)."""

    metadata = {"render_modes": []}
    _directions = {0: np.array([1, 0]), 1: np.array([0, 1]), 2: np.array([-1, 0]), 3: np.array([0, -1])}

    def __init__(self, size: int = 5) -> None:
        self.size = size
        self.observation_space, self.action_space = _spaces(size)

    def _get_obs(self) -> dict[str, np.ndarray]:
        return {"agent": self._agent.copy(), "target": self._target.copy()}

    def _get_info(self) -> dict[str, float]:
        return {"distance": float(np.abs(self._agent - self._target).sum())}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self._agent = self.np_random.integers(0, self.size, size=2, dtype=np.int64)
        self._target = self._agent
        while np.array_equal(self._target, self._agent):
            self._target = self.np_random.integers(0, self.size, size=2, dtype=np.int64)
        return self._get_obs(), self._get_info()

    def step(self, action: int) -> tuple[dict, int, bool, bool, dict]:
        self._agent = np.clip(self._agent + self._directions[int(action)], 0, self.size - 1)
        terminated = bool(np.array_equal(self._agent, self._target))
        return self._get_obs(), 1 if terminated else 0, terminated, False, self._get_info()


nbgym.register(
    "examples/GridWorld-v0",
    entry_point=GridWorldEnv,
    vector_entry_point=GridWorldVectorEnv,
    max_episode_steps=100,
)
nbgym.register("examples/PythonGridWorld-v0", entry_point=PythonGridWorldEnv, max_episode_steps=100)


# --------------------------------------------------------------------------------------------- checks, speed


def same(ours: Any, theirs: Any) -> bool:
    """Equal values of the same types (arrays by dtype and elements; dicts, tuples and lists element-wise)."""
    if type(ours) is not type(theirs):
        return False
    if isinstance(theirs, np.ndarray):
        if theirs.dtype == object:
            return ours.shape == theirs.shape and all(same(a, b) for a, b in zip(ours, theirs))
        return ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
    if isinstance(theirs, dict):
        return list(ours) == list(theirs) and all(same(ours[k], theirs[k]) for k in theirs)
    if isinstance(theirs, (tuple, list)):
        return len(ours) == len(theirs) and all(same(a, b) for a, b in zip(ours, theirs))
    return ours == theirs


def check_same(num_envs: int, steps: int, seed: int = 0) -> int:
    """Steps the compiled and the plain env (single, then vector in each autoreset mode) with the same seeds and
    random actions; returns the number of episodes that ended.

    Raises:
        AssertionError: At the first result that differs.
    """
    actions = np.random.default_rng(seed).integers(0, 4, size=(steps, num_envs))
    ours, theirs = nbgym.make("examples/GridWorld-v0"), nbgym.make("examples/PythonGridWorld-v0")
    assert same(ours.reset(seed=seed), theirs.reset(seed=seed)), "single reset"
    ended = 0
    for t in range(steps):
        expected = theirs.step(int(actions[t, 0]))
        assert same(ours.step(int(actions[t, 0])), expected), f"single step {t}"
        if expected[2] or expected[3]:
            ended += 1
            assert same(ours.reset(), theirs.reset()), f"single reset after step {t}"
    for mode in ("NextStep", "SameStep"):
        ours = nbgym.make_vec("examples/GridWorld-v0", num_envs, autoreset_mode=mode)
        theirs = nbgym.make_vec(
            "examples/PythonGridWorld-v0", num_envs, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
        )
        assert same(ours.reset(seed=seed), theirs.reset(seed=seed)), f"{mode} reset"
        for t in range(steps):
            expected = theirs.step(actions[t])
            assert same(ours.step(actions[t]), expected), f"{mode} step {t}"
            ended += int(expected[2].sum() + expected[3].sum())
    return ended


def steps_per_second(envs: Any, steps: int) -> float:
    """Env-steps per second of ``envs`` under random actions (drawn in advance)."""
    actions = np.random.default_rng(0).integers(0, 4, size=(steps, envs.num_envs))
    envs.reset(seed=0)
    envs.step(actions[0])  # compiled (or loaded from the cache) before timing
    start = time.perf_counter()
    for t in range(steps):
        envs.step(actions[t])
    return envs.num_envs * steps / (time.perf_counter() - start)


def main(num_envs: int = 1024, steps: int = 200) -> dict[str, float]:
    """Checks the compiled env (``check_env``, then against the plain env), and times both under ``num_envs``.

    Returns:
        ``{"episodes": ..., "compiled": steps/s, "python": steps/s, "speedup": ...}``.
    """
    from nbgym.utils.env_checker import check_env

    check_env(nbgym.make("examples/GridWorld-v0").unwrapped)
    episodes = check_same(num_envs=8, steps=steps)
    compiled = steps_per_second(nbgym.make_vec("examples/GridWorld-v0", num_envs), steps)
    python = steps_per_second(
        nbgym.make_vec("examples/PythonGridWorld-v0", num_envs, vectorization_mode="sync"), max(steps // 10, 2)
    )
    results = {"episodes": episodes, "compiled": compiled, "python": python, "speedup": compiled / python}
    print(f"check_env passed; compiled == plain Python over {episodes} episodes")
    print(
        f"{num_envs} envs: compiled {compiled:,.0f} steps/s, plain Python under SyncVectorEnv {python:,.0f} steps/s "
        f"({compiled / python:,.0f}x)"
    )
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200)
    arguments = parser.parse_args()
    main(arguments.num_envs, arguments.steps)
