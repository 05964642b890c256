"""MountainCar: drive an underpowered car up a hill, as gymnasium's ``MountainCar-v0``, on the compiled engine."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, rng, vector_env_class
from nbgym.engine.npmath import clip
from nbgym.engine.state_views import FLOAT32, StateView, float_values
from nbgym.envs.classic_control._options import ResetBoundsOption


_AS_TUPLE = 2  # state column: gymnasium's `state` is an array after a reset, a tuple after a step:
_ARRAY, _TUPLE, _TUPLE_STOPPED = 0.0, 1.0, 2.0  # ...whose velocity is the int 0 when the left wall stopped the car


def _reset(params, state, i, stream, aux):
    state[i, 0] = rng.uniform(stream, i, params._reset_low, params._reset_high)
    state[i, 1] = 0.0
    state[i, _AS_TUPLE] = _ARRAY


def _step(params, state, i, actions, stream, aux):
    position = state[i, 0]
    velocity = state[i, 1]
    velocity = velocity + ((actions[i] - 1) * params.force + math.cos(3 * position) * (-params.gravity))
    velocity = clip(velocity, -params.max_speed, params.max_speed)
    position = clip(position + velocity, params.min_position, params.max_position)
    state[i, _AS_TUPLE] = _TUPLE
    if position == params.min_position and velocity < 0:
        velocity = 0.0
        state[i, _AS_TUPLE] = _TUPLE_STOPPED
    state[i, 0] = position
    state[i, 1] = velocity
    return -1.0, position >= params.goal_position and velocity >= params.goal_velocity


def _observe(params, state, i, obs):
    obs[i, 0] = np.float32(state[i, 0])
    obs[i, 1] = np.float32(state[i, 1])


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 3


PHYSICS = Physics(
    "MountainCar",
    params=[
        ("min_position", np.float64),
        ("max_position", np.float64),
        ("max_speed", np.float64),
        ("goal_position", np.float64),
        ("goal_velocity", np.float64),
        ("force", np.float64),
        ("gravity", np.float64),
        ("_reset_low", np.float64),
        ("_reset_high", np.float64),
    ],
    state=(3, np.float64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
)


def _new_params(goal_velocity: float) -> np.ndarray:
    return PHYSICS.new_params(
        min_position=-1.2,
        max_position=0.6,
        max_speed=0.07,
        goal_position=0.5,
        goal_velocity=goal_velocity,
        force=0.001,
        gravity=0.0025,
        _reset_low=-0.6,
        _reset_high=-0.4,
    )


def state_bounds(params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float32 ``[position, velocity]`` bounds of the mountain cars' observation spaces."""
    low = np.array([params["min_position"][0], -params["max_speed"][0]], dtype=np.float32)
    high = np.array([params["max_position"][0], params["max_speed"][0]], dtype=np.float32)
    return low, high


def _spaces(params: np.ndarray) -> tuple[spaces.Box, spaces.Discrete]:
    low, high = state_bounds(params)
    return spaces.Box(low, high, dtype=np.float32), spaces.Discrete(3)


def _read_state(params: np.record, row: np.ndarray) -> np.ndarray | tuple[np.float64, np.float64 | int]:
    if row[_AS_TUPLE] == _TUPLE_STOPPED:
        return np.float64(row[0]), 0
    if row[_AS_TUPLE] == _TUPLE:
        return np.float64(row[0]), np.float64(row[1])
    return row[:2].copy()


def position_values(value: Any) -> tuple[np.ndarray, str]:
    """The mountain cars' ``state`` value checked (see ``float_values``).

    Raises:
        ValueError: If it is not two real numbers, or ``3 * position`` is infinite: gymnasium's step raises
            ``ValueError: math domain error`` at ``math.cos(3 * position)``.
    """
    values, precision = float_values(value, 2, "state")
    with np.errstate(over="ignore"):
        angle = np.float32(3) * np.float32(values[0]) if precision == FLOAT32 else 3 * values[0]
    if np.isinf(angle):
        raise ValueError(
            f"math domain error: 3 * the position in state must be finite, got {value!r} (gymnasium's step raises "
            f"this error at math.cos(3 * position))."
        )
    return values, precision


def _write_state(params: np.record, row: np.ndarray, value: Any) -> None:
    values, precision = position_values(value)
    if precision == FLOAT32:
        raise ValueError(
            f"state must be float64 numbers, got float32 ones ({value!r}): gymnasium would compute the rest of "
            f"the episode in float32, which nbgym does not reproduce. Pass `np.array(..., dtype=np.float64)`."
        )
    row[:2] = values
    row[_AS_TUPLE] = _TUPLE if isinstance(value, tuple) else _ARRAY


class MountainCarResetOptions(ResetBoundsOption):
    """The mountain cars' reset options: the starting position is drawn from ``[-0.6, -0.4]`` by default."""

    _default_reset_bounds = (-0.6, -0.4)


class _MountainCarAttributes(MountainCarResetOptions):
    """MountainCar's reset options and state attribute, shared by the single and the vector env."""

    physics = PHYSICS
    renderer = "nbgym.envs._render.mountain_car"
    frame_size_attributes = {
        "screen_width": lambda env, width, height: width,
        "screen_height": lambda env, width, height: height,
    }

    def _configure(self, arguments: Any) -> np.ndarray:
        return _new_params(arguments.goal_velocity)

    def _single_spaces(self) -> tuple[spaces.Space, spaces.Space]:
        return _spaces(self._params)

    asserts_action_in_space = True  # gymnasium asserts action_space.contains(action)
    state_views = (
        StateView(
            "state",
            _read_state,
            _write_state,
            """``[position, velocity]`` as gymnasium's ``env.unwrapped.state``: a float64 array after a reset, a
            tuple of two ``np.float64`` after a step (the velocity the int 0 when the left wall stopped the
            car). Assigning it sets the state.""",
        ),
    )


class MountainCarEnv(_MountainCarAttributes, KernelEnv):
    """
    ## Description

    The Mountain Car MDP: a car is placed stochastically at the bottom of a sinusoidal valley, and the
    only possible actions are accelerations in either direction. The goal is to accelerate the car
    strategically so that it reaches the goal on top of the right hill; its engine is too weak to
    drive straight up, so it has to build momentum by swinging back and forth. gymnasium has two
    versions of the domain, with discrete and with continuous actions; this is the discrete one.

    The MDP first appeared in Moore's [PhD thesis (1990)](https://www.cl.cam.ac.uk/techreports/UCAM-CL-TR-209.pdf)

    ```
    @TECHREPORT{Moore90efficientmemory-based,
        author = {Andrew William Moore},
        title = {Efficient Memory-based Learning for Robot Control},
        institution = {University of Cambridge},
        year = {1990}
    }
    ```

    ## Observation Space

    An `ndarray` of shape `(2,)`, dtype `float32`:

    | Num | Observation                          | Min   | Max  | Unit         |
    |-----|--------------------------------------|-------|------|--------------|
    | 0   | position of the car along the x-axis | -1.2  | 0.6  | position (m) |
    | 1   | velocity of the car                  | -0.07 | 0.07 | velocity (v) |

    ## Action Space

    `Discrete(3)`, deterministic accelerations:

    - 0: Accelerate to the left
    - 1: Don't accelerate
    - 2: Accelerate to the right

    ## Transition Dynamics:

    *velocity<sub>t+1</sub> = velocity<sub>t</sub> + (action - 1) * force - cos(3 * position<sub>t</sub>) * gravity*

    *position<sub>t+1</sub> = position<sub>t</sub> + velocity<sub>t+1</sub>*

    with force = 0.001 and gravity = 0.0025. The velocity is clipped to `[-0.07, 0.07]` and the
    position to `[-1.2, 0.6]`; the collision with the left wall is inelastic (the velocity is set to 0
    there).

    ## Reward:

    -1 for every time step: the goal is to reach the flag on top of the right hill as quickly as
    possible.

    ## Starting State

    The position is drawn uniformly from *[-0.6 , -0.4]*; the velocity is 0.

    ## Episode End

    1. Termination: the position is at least 0.5 (the flag) and the velocity at least `goal_velocity`.
    2. Truncation: the episode lasts 200 steps.

    ## Arguments

    - `goal_velocity` (default `0`): the velocity the car must (at least) have at the flag.
    - `render_mode`: `"human"` or `"rgb_array"`.

    `reset(options={"low": ..., "high": ...})` changes the range of the starting position.

    ```python
    >>> import nbgym
    >>> env = nbgym.make("MountainCar-v0", render_mode="rgb_array", goal_velocity=0.05)  # default goal_velocity=0
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<MountainCarEnv<MountainCar-v0>>>>>
    >>> env.reset(seed=123, options={"low": -0.7, "high": 0.5})  # default low=-0.6, high=-0.4
    (array([0.11882224, 0.        ], dtype=float32), {})

    ```

    The dynamics are compiled: `nbgym.make_vec("MountainCar-v0", num_envs=4096)` steps all
    sub-environments in one call (`MountainCarVectorEnv`). The constants `min_position`,
    `max_position`, `max_speed`, `goal_position`, `goal_velocity`, `force` and `gravity` are
    attributes, as in gymnasium, and changing them changes the following steps.

    ## Version History

    * v0: Initial versions release
    """

    window_attributes = ("screen", "clock", "isopen")

    gymnasium_hooks = {"_height": ("render",)}

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}
    # In a render mode it does not list, gymnasium's environment returns None from render().
    unlisted_render_mode = "none"

    @declares_arguments
    def __init__(self, render_mode: str | None = None, goal_velocity: float = 0) -> None:
        self.low, self.high = state_bounds(self._params)

    def get_keys_to_action(self) -> dict[tuple[int, ...], int]:
        """The keys of ``nbgym.utils.play``: the left and right arrows (gymnasium's mapping, whose key codes
        275 and 276 are pygame 1's; pygame 2 numbers the arrows differently, so pass ``keys_to_action``
        to ``play`` there, e.g. ``{"a": 0, "d": 2}``)."""
        return {(): 1, (276,): 0, (275,): 2, (275, 276): 1}

    def _height(self, xs: Any) -> Any:
        """The track's height at positions ``xs``, as gymnasium's frame draws it: ``sin(3 xs) * 0.45 + 0.55``."""
        return np.sin(3 * xs) * 0.45 + 0.55


MountainCarVectorEnv = vector_env_class(
    MountainCarEnv,
    doc="""MountainCar's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("MountainCar-v0", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions, in every autoreset mode. See
    ``MountainCarEnv`` for the environment and ``KernelVectorEnv`` for the vector arguments.
    """,
)
