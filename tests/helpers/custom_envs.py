"""Environments written with nbgym's public engine API (``nbgym.engine``), and the same environments in plain
Python (gymnasium ``Env``s drawing from ``np_random``), registered under one id in nbgym and in gymnasium.

Between them they use every space kind the kernels support: ``Box`` actions (float32) and ``Discrete``
actions; ``Box``, ``MultiDiscrete``, ``MultiBinary`` and ``Discrete`` observations; infos from aux slots,
reset options, and every draw of ``nbgym.engine.rng``.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium
import numpy as np

import nbgym
from nbgym import spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, njit, rng, vector_env_class

# ---------------------------------------------------------------- Drift: Box actions, Box observations, infos


def _drift_reset(params, state, i, stream, aux):
    state[i, 0] = rng.uniform(stream, i, -params.spread, params.spread)
    state[i, 1] = rng.uniform(stream, i, -params.spread, params.spread)
    aux[i, 0] = _distance(state[i, 0], state[i, 1])


@njit
def _distance(x, y):
    return math.sqrt(x * x + y * y)


def _drift_step(params, state, i, actions, stream, aux):
    x = state[i, 0] + params.speed * np.float64(actions[i, 0]) + rng.uniform(stream, i, -params.noise, params.noise)
    y = state[i, 1] + params.speed * np.float64(actions[i, 1]) + rng.uniform(stream, i, -params.noise, params.noise)
    state[i, 0] = x
    state[i, 1] = y
    distance = _distance(x, y)
    aux[i, 0] = distance
    return -distance, distance < params.goal or distance > 2.0


def _drift_observe(params, state, i, obs):
    obs[i, 0] = np.float32(state[i, 0])
    obs[i, 1] = np.float32(state[i, 1])
    obs[i, 2] = np.float32(_distance(state[i, 0], state[i, 1]))


def _drift_action_valid(params, actions, i):
    return -1.0 <= actions[i, 0] <= 1.0 and -1.0 <= actions[i, 1] <= 1.0


DRIFT = Physics(
    "TestDrift",
    params=[("speed", np.float64), ("noise", np.float64), ("goal", np.float64), ("spread", np.float64)],
    state=(2, np.float64),
    reset=_drift_reset,
    step=_drift_step,
    observe=_drift_observe,
    action_valid=_drift_action_valid,
    aux_width=1,
)


def _drift_spaces() -> tuple[spaces.Box, spaces.Box]:
    return spaces.Box(-np.inf, np.inf, (3,), np.float32), spaces.Box(-1.0, 1.0, (2,), np.float32)


class _DriftOptions:
    """The reset option ``spread`` (half-width of the start square), for both classes."""

    _params: np.ndarray

    def _reset_params(self, options: dict[str, Any] | None) -> np.ndarray:
        if not options or "spread" not in options:
            return self._params
        params = self._params.copy()
        params["spread"] = float(options["spread"])
        return params


class DriftEnv(_DriftOptions, KernelEnv):
    """A point pushed towards the origin on a noisy plane; info ``distance``."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}
    physics = DRIFT
    info_keys = ("distance",)

    @declares_arguments
    def __init__(self, speed: float = 0.1, render_mode: str | None = None) -> None:
        """Drift's arguments."""

    def _configure(self, arguments: Any) -> np.ndarray:
        return DRIFT.new_params(speed=arguments.speed, noise=0.01, goal=0.1, spread=1.0)

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Box]:
        return _drift_spaces()


DriftVectorEnv = vector_env_class(DriftEnv, doc="Drift's compiled vector env.")


class DriftReference(gymnasium.Env):
    """Drift in plain Python."""

    def __init__(self, speed: float = 0.1) -> None:
        self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (3,), np.float32)
        self.action_space = gymnasium.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.speed, self.noise, self.goal, self.spread = speed, 0.01, 0.1, 1.0

    def _result(self) -> tuple[np.ndarray, float]:
        distance = math.sqrt(self.x * self.x + self.y * self.y)
        return np.array([self.x, self.y, distance], dtype=np.float32), distance

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        spread = float((options or {}).get("spread", self.spread))
        self.x = self.np_random.uniform(-spread, spread)
        self.y = self.np_random.uniform(-spread, spread)
        obs, distance = self._result()
        return obs, {"distance": distance}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict]:
        assert self.action_space.contains(action)
        self.x = self.x + self.speed * float(action[0]) + self.np_random.uniform(-self.noise, self.noise)
        self.y = self.y + self.speed * float(action[1]) + self.np_random.uniform(-self.noise, self.noise)
        obs, distance = self._result()
        return obs, -distance, bool(distance < self.goal or distance > 2.0), False, {"distance": distance}


# ---------------------------------------------------------------- Counter: Discrete actions, MultiDiscrete obs

_LEVEL, _COUNT = 0, 1


def _counter_reset(params, state, i, stream, aux):
    state[i, _LEVEL] = rng.integers(stream, i, 0, 4)
    state[i, _COUNT] = 0


def _counter_step(params, state, i, actions, stream, aux):
    if rng.random(stream, i) < params.jump:
        state[i, _LEVEL] = rng.integers(stream, i, 0, 4)
    else:
        state[i, _LEVEL] = min(max(state[i, _LEVEL] + actions[i] - 1, 0), 3)
    state[i, _COUNT] = min(state[i, _COUNT] + 1, 9)
    return float(state[i, _LEVEL]), state[i, _LEVEL] == 3 and state[i, _COUNT] >= 5


def _counter_observe(params, state, i, obs):
    obs[i, 0] = state[i, _LEVEL]
    obs[i, 1] = state[i, _COUNT]


def _counter_action_valid(params, actions, i):
    return 0 <= actions[i] < 3


COUNTER = Physics(
    "TestCounter",
    params=[("jump", np.float64)],
    state=(2, np.int64),
    reset=_counter_reset,
    step=_counter_step,
    observe=_counter_observe,
    action_valid=_counter_action_valid,
)


class CounterEnv(KernelEnv):
    """Climb four levels, with random jumps."""

    metadata = {"render_modes": []}
    physics = COUNTER

    @declares_arguments
    def __init__(self, jump: float = 0.1, render_mode: str | None = None) -> None:
        """Counter's arguments."""

    def _configure(self, arguments: Any) -> np.ndarray:
        return COUNTER.new_params(jump=arguments.jump)

    def _single_spaces(self) -> tuple[spaces.MultiDiscrete, spaces.Discrete]:
        return spaces.MultiDiscrete([4, 10]), spaces.Discrete(3)


CounterVectorEnv = vector_env_class(CounterEnv, doc="Counter's compiled vector env.")


class CounterReference(gymnasium.Env):
    """Counter in plain Python."""

    def __init__(self, jump: float = 0.1) -> None:
        self.observation_space = gymnasium.spaces.MultiDiscrete([4, 10])
        self.action_space = gymnasium.spaces.Discrete(3)
        self.jump = jump

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.level, self.count = int(self.np_random.integers(0, 4)), 0
        return np.array([self.level, self.count], dtype=np.int64), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        assert self.action_space.contains(action)
        if self.np_random.random() < self.jump:
            self.level = int(self.np_random.integers(0, 4))
        else:
            self.level = min(max(self.level + int(action) - 1, 0), 3)
        self.count = min(self.count + 1, 9)
        terminated = self.level == 3 and self.count >= 5
        return np.array([self.level, self.count], dtype=np.int64), float(self.level), terminated, False, {}


# ---------------------------------------------------------------- Lights: Discrete actions, MultiBinary obs


def _lights_reset(params, state, i, stream, aux):
    for k in range(4):
        state[i, k] = rng.integers(stream, i, 0, 2)


def _lights_step(params, state, i, actions, stream, aux):
    state[i, actions[i]] = 1 - state[i, actions[i]]
    if rng.random(stream, i) < 0.05:
        k = rng.integers(stream, i, 0, 4)
        state[i, k] = 1 - state[i, k]
    on = 0
    for k in range(4):
        on += state[i, k]
    return float(on), on == 4


def _lights_observe(params, state, i, obs):
    for k in range(4):
        obs[i, k] = state[i, k]


def _lights_action_valid(params, actions, i):
    return 0 <= actions[i] < 4


LIGHTS = Physics(
    "TestLights",
    params=[],
    state=(4, np.int64),
    reset=_lights_reset,
    step=_lights_step,
    observe=_lights_observe,
    action_valid=_lights_action_valid,
)


class LightsEnv(KernelEnv):
    """Switch four lights on."""

    metadata = {"render_modes": []}
    physics = LIGHTS

    @declares_arguments
    def __init__(self, render_mode: str | None = None) -> None:
        """Lights takes no arguments of its own."""

    def _configure(self, arguments: Any) -> np.ndarray:
        return LIGHTS.new_params()

    def _single_spaces(self) -> tuple[spaces.MultiBinary, spaces.Discrete]:
        return spaces.MultiBinary(4), spaces.Discrete(4)


LightsVectorEnv = vector_env_class(LightsEnv, doc="Lights' compiled vector env.")


class LightsReference(gymnasium.Env):
    """Lights in plain Python."""

    def __init__(self) -> None:
        self.observation_space = gymnasium.spaces.MultiBinary(4)
        self.action_space = gymnasium.spaces.Discrete(4)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.lights = np.array([self.np_random.integers(0, 2) for _ in range(4)], dtype=np.int8)
        return self.lights.copy(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        assert self.action_space.contains(action)
        self.lights[action] = 1 - self.lights[action]
        if self.np_random.random() < 0.05:
            k = self.np_random.integers(0, 4)
            self.lights[k] = 1 - self.lights[k]
        on = int(self.lights.sum())
        return self.lights.copy(), float(on), on == 4, False, {}


# ---------------------------------------------------------------- Walk: Discrete actions, Discrete observations


def _walk_reset(params, state, i, stream, aux):
    state[i, 0] = 3


def _walk_step(params, state, i, actions, stream, aux):
    move = 1 if actions[i] == 1 else -1
    if rng.random(stream, i) < 0.2:
        move = -move
    state[i, 0] += move
    return (1.0 if state[i, 0] == 6 else 0.0), state[i, 0] == 0 or state[i, 0] == 6


def _walk_observe(params, state, i, obs):
    obs[i] = state[i, 0]


def _walk_action_valid(params, actions, i):
    return 0 <= actions[i] < 2


WALK = Physics(
    "TestWalk",
    params=[],
    state=(1, np.int64),
    reset=_walk_reset,
    step=_walk_step,
    observe=_walk_observe,
    action_valid=_walk_action_valid,
)


class WalkEnv(KernelEnv):
    """A slippery random walk on seven cells; observations are Python ints."""

    metadata = {"render_modes": []}
    physics = WALK

    @declares_arguments
    def __init__(self, render_mode: str | None = None) -> None:
        """Walk takes no arguments of its own."""

    def _configure(self, arguments: Any) -> np.ndarray:
        return WALK.new_params()

    def _single_spaces(self) -> tuple[spaces.Discrete, spaces.Discrete]:
        return spaces.Discrete(7), spaces.Discrete(2)

    def _observation(self) -> int:
        return self._batch.obs.item(0)


class WalkVectorEnv(vector_env_class(WalkEnv)):
    """Walk's compiled vector env; final observations are Python ints."""

    def _final_observation(self, row: np.ndarray) -> int:
        return int(row)


class WalkReference(gymnasium.Env):
    """Walk in plain Python."""

    def __init__(self) -> None:
        self.observation_space = gymnasium.spaces.Discrete(7)
        self.action_space = gymnasium.spaces.Discrete(2)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[int, dict]:
        super().reset(seed=seed)
        self.position = 3
        return self.position, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict]:
        assert self.action_space.contains(action)
        move = 1 if action == 1 else -1
        if self.np_random.random() < 0.2:
            move = -move
        self.position += move
        return self.position, float(self.position == 6), self.position in (0, 6), False, {}


ENVS = {"Drift": 40, "Counter": 30, "Lights": 25, "Walk": 20}
"""Each test env's name and registered time limit."""

for _name, _limit in ENVS.items():
    nbgym.register(
        f"test/{_name}-v0",
        entry_point=f"{__name__}:{_name}Env",
        vector_entry_point=f"{__name__}:{_name}VectorEnv",
        max_episode_steps=_limit,
    )
    gymnasium.register(f"test/{_name}-v0", entry_point=f"{__name__}:{_name}Reference", max_episode_steps=_limit)
