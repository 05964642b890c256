"""MountainCarContinuous: the mountain car with a continuous force, as gymnasium's ``MountainCarContinuous-v0``,
on the compiled engine.

gymnasium's step mixes Python floats, float64 and float32 numpy scalars, and NumPy 2 decides the precision
of every operation from the types of its operands: a Python float meeting a float32 is rounded to float32
and the operation is float32 arithmetic; float32 meeting float64 is float64 arithmetic. The types change
over an episode (the state is float64 after a reset and float32 after a step; the force is the action's
dtype, or a Python float once clipped). The kernel tracks, next to each value, the kind of Python object
gymnasium would hold (``_FLOAT64``, ``_PYFLOAT``, ``_FLOAT32``) and computes every operation in the
precision NumPy would, so the results are gymnasium's to the bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, njit, rng, vector_env_class, written
from nbgym.engine.npmath import square
from nbgym.engine.state_views import FLOAT32, FLOAT64, PYTHON, StateView
from nbgym.envs.classic_control.mountain_car import MountainCarResetOptions, position_values, state_bounds

# The kinds of number in gymnasium's arithmetic, with nbgym.engine.written's codes (a written parameter's kind field
# holds one):
_FLOAT64 = written.KIND_CODES[written.FLOAT64]  # a numpy float64 scalar: float64 arithmetic against anything
_PYFLOAT = written.KIND_CODES[
    written.PYTHON
]  # a Python float (or int): takes the precision of the numpy scalar it meets
_FLOAT32 = written.KIND_CODES[
    written.FLOAT32
]  # a numpy float32 scalar: float32 arithmetic against itself, Python floats


@njit
def _float32_op(kind_a, kind_b):
    """Whether NumPy computes an operation between values of these kinds in float32."""
    return (kind_a == _FLOAT32 and kind_b != _FLOAT64) or (kind_b == _FLOAT32 and kind_a != _FLOAT64)


@njit
def _result_kind(kind_a, kind_b):
    if _float32_op(kind_a, kind_b):
        return _FLOAT32
    return _PYFLOAT if kind_a == _PYFLOAT and kind_b == _PYFLOAT else _FLOAT64


@njit
def _add(a, kind_a, b, kind_b):
    """``a + b`` and its kind; float32 values are held exactly in float64."""
    if _float32_op(kind_a, kind_b):
        return np.float64(np.float32(a) + np.float32(b)), _FLOAT32
    return a + b, _result_kind(kind_a, kind_b)


@njit
def _subtract(a, kind_a, b, kind_b):
    if _float32_op(kind_a, kind_b):
        return np.float64(np.float32(a) - np.float32(b)), _FLOAT32
    return a - b, _result_kind(kind_a, kind_b)


@njit
def _multiply(a, kind_a, b, kind_b):
    if _float32_op(kind_a, kind_b):
        return np.float64(np.float32(a) * np.float32(b)), _FLOAT32
    return a * b, _result_kind(kind_a, kind_b)


@njit
def _less(a, kind_a, b, kind_b):
    """``a < b`` compared as NumPy compares the two kinds (a Python float is rounded to float32 against float32)."""
    if _float32_op(kind_a, kind_b):
        return np.float32(a) < np.float32(b)
    return a < b


@njit
def _at_least(a, kind_a, b, kind_b):
    """``a >= b`` (false when either is NaN, which ``not a < b`` would not be)."""
    if _float32_op(kind_a, kind_b):
        return np.float32(a) >= np.float32(b)
    return a >= b


@njit
def _equal(a, kind_a, b, kind_b):
    if _float32_op(kind_a, kind_b):
        return np.float32(a) == np.float32(b)
    return a == b


def _reset(params, state, i, stream, aux):
    state[i, 0] = rng.uniform(stream, i, params._reset_low, params._reset_high)
    state[i, 1] = 0.0
    state[i, 2] = _FLOAT64


def _step(params, state, i, actions, stream, aux):
    position, position_kind = state[i, 0], np.int64(state[i, 2])
    velocity, velocity_kind = state[i, 1], position_kind
    action = np.float64(actions[i, 0])
    if params._python_float_action:
        action_kind = _PYFLOAT
    else:
        action_kind = _FLOAT32 if actions.itemsize == 4 else _FLOAT64

    # force = min(max(action, min_action), max_action): Python's max/min keep the action object
    # unless the bound is strictly beyond it, and then hold the bound, a Python float.
    force, force_kind = action, action_kind
    if _less(force, force_kind, params.min_action, params._min_action_kind):
        force, force_kind = params.min_action, params._min_action_kind
    if _less(params.max_action, params._max_action_kind, force, force_kind):
        force, force_kind = params.max_action, params._max_action_kind

    push, push_kind = _multiply(force, force_kind, params.power, params._power_kind)
    angle, _ = _multiply(3.0, _PYFLOAT, position, position_kind)
    slope = 0.0025 * math.cos(angle)
    change, change_kind = _subtract(push, push_kind, slope, _PYFLOAT)
    velocity, velocity_kind = _add(velocity, velocity_kind, change, change_kind)
    if _less(params.max_speed, params._max_speed_kind, velocity, velocity_kind):
        velocity, velocity_kind = params.max_speed, params._max_speed_kind
    if _less(velocity, velocity_kind, -params.max_speed, params._max_speed_kind):
        velocity, velocity_kind = -params.max_speed, params._max_speed_kind
    position, position_kind = _add(position, position_kind, velocity, velocity_kind)
    if _less(params.max_position, params._max_position_kind, position, position_kind):
        position, position_kind = params.max_position, params._max_position_kind
    if _less(position, position_kind, params.min_position, params._min_position_kind):
        position, position_kind = params.min_position, params._min_position_kind
    if _equal(position, position_kind, params.min_position, params._min_position_kind) and _less(
        velocity, velocity_kind, 0.0, _PYFLOAT
    ):
        velocity, velocity_kind = 0.0, _PYFLOAT

    terminated = _at_least(position, position_kind, params.goal_position, params._goal_position_kind) and _at_least(
        velocity, velocity_kind, params.goal_velocity, params._goal_velocity_kind
    )
    # The reward uses the action as given, not the clipped force, in double precision (math.pow).
    reward = (100.0 if terminated else 0.0) - square(action) * 0.1
    state[i, 0] = np.float32(position)
    state[i, 1] = np.float32(velocity)
    state[i, 2] = _FLOAT32
    return reward, terminated


def _observe(params, state, i, obs):
    obs[i, 0] = np.float32(state[i, 0])
    obs[i, 1] = np.float32(state[i, 1])


def _action_valid(params, actions, i):
    # gymnasium lets a NaN force turn the state into NaN for the rest of the episode; refuse it instead.
    # An action whose square overflows makes gymnasium's `math.pow(action, 2)` raise OverflowError.
    return not math.isnan(actions[i, 0]) and not _square_overflows(np.float64(actions[i, 0]))


@njit
def _square_overflows(action):
    """Whether ``math.pow(action, 2)`` raises ``OverflowError`` (a finite action whose square is not)."""
    return not math.isinf(action) and math.isinf(square(action))


def _read_action(params: Any, action: Any) -> Any:
    """gymnasium's reading of an action: its force ``min(max(action[0], min_action), max_action)`` and its reward's
    ``math.pow(action[0], 2)`` (an ``OverflowError`` for an action whose square overflows: keep actions in the
    action space's bounds, [-1, 1])."""
    min(max(action[0], params.min_action), params.max_action)
    math.pow(action[0], 2)
    return action


_PARAMETERS = tuple(
    "min_action max_action min_position max_position max_speed goal_position goal_velocity power".split()
)
"""The parameters gymnasium's env has as attributes."""

PHYSICS = Physics(
    "Continuous_MountainCar",
    params=[
        ("min_action", np.float64),
        ("max_action", np.float64),
        ("min_position", np.float64),
        ("max_position", np.float64),
        ("max_speed", np.float64),
        ("goal_position", np.float64),
        ("goal_velocity", np.float64),
        ("power", np.float64),
        ("_reset_low", np.float64),
        ("_reset_high", np.float64),
        ("_python_float_action", np.bool_),
        # The kind of number of each parameter (nbgym.engine.written): gymnasium's arithmetic meets float32 values.
        *[(written.kind_field(name), np.int8) for name in _PARAMETERS],
    ],
    state=(3, np.float64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    read_action=_read_action,
)


def _new_params(goal_velocity: float) -> np.ndarray:
    return PHYSICS.new_params(
        min_action=-1.0,
        max_action=1.0,
        min_position=-1.2,
        max_position=0.6,
        max_speed=0.07,
        goal_position=0.45,
        goal_velocity=goal_velocity,
        power=0.0015,
        _reset_low=-0.6,
        _reset_high=-0.4,
        _python_float_action=False,
    )


def _spaces(params: np.ndarray) -> tuple[spaces.Box, spaces.Box]:
    low, high = state_bounds(params)
    min_action, max_action = params["min_action"][0].item(), params["max_action"][0].item()
    return (
        spaces.Box(low=low, high=high, dtype=np.float32),
        spaces.Box(low=min_action, high=max_action, shape=(1,), dtype=np.float32),
    )


_KINDS = {FLOAT32: _FLOAT32, PYTHON: _PYFLOAT, FLOAT64: _FLOAT64}


def _read_state(params: np.record, row: np.ndarray) -> np.ndarray | list[float]:
    if row[2] == _PYFLOAT:  # a list assigned by the user, not stepped since
        return row[:2].tolist()
    return np.array(row[:2], dtype=np.float32 if row[2] == _FLOAT32 else np.float64)


def _write_state(params: np.record, row: np.ndarray, value: Any) -> None:
    values, precision = position_values(value)
    row[:2] = values
    row[2] = _KINDS[precision]


class _ContinuousMountainCarAttributes(MountainCarResetOptions):
    """MountainCarContinuous's reset options, state attribute and exceptions, shared by the single and the vector env."""

    physics = PHYSICS
    renderer = "nbgym.envs._render.mountain_car"
    frame_size_attributes = {
        "screen_width": lambda env, width, height: width,
        "screen_height": lambda env, width, height: height,
    }
    # gymnasium's frame draws the track from np.linspace(min_position, max_position): float32 ends make its points
    # float32, which pygame refuses (TypeError) where nbgym would draw.
    written_kinds = {
        name: (written.PYTHON, written.FLOAT64, written.FLOAT64_0D) for name in ("min_position", "max_position")
    }

    def _configure(self, arguments: Any) -> np.ndarray:
        return _new_params(arguments.goal_velocity)

    def _single_spaces(self) -> tuple[spaces.Space, spaces.Space]:
        return _spaces(self._params)

    _python_number_actions_param = "_python_float_action"
    state_views = (
        StateView(
            "state",
            _read_state,
            _write_state,
            """``[position, velocity]`` as gymnasium's ``env.unwrapped.state``: float64 after a reset, float32
            after a step. Assigning it sets the state, and by its type the precision of the next step.""",
        ),
    )


class Continuous_MountainCarEnv(_ContinuousMountainCarAttributes, KernelEnv):
    """
    ## Description

    The Mountain Car MDP: a car is placed stochastically at the bottom of a sinusoidal valley, and the
    only possible actions are accelerations in either direction. The goal is to accelerate the car
    strategically so that it reaches the goal on top of the right hill; its engine is too weak to
    drive straight up, so it has to build momentum by swinging back and forth. gymnasium has two
    versions of the domain, with discrete and with continuous actions; this is the continuous one.

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

    | Num | Observation                          | Min   | Max  | Unit          |
    |-----|--------------------------------------|-------|------|---------------|
    | 0   | position of the car along the x-axis | -1.2  | 0.6  | position (m)  |
    | 1   | velocity of the car                  | -0.07 | 0.07 | velocity (v)  |

    ## Action Space

    An `ndarray` of shape `(1,)`: the directional force applied to the car. It is clipped to
    `[-1, 1]` and multiplied by a power of 0.0015. A NaN force raises `InvalidAction`.

    ## Transition Dynamics:

    *velocity<sub>t+1</sub> = velocity<sub>t</sub> + force * power - 0.0025 * cos(3 * position<sub>t</sub>)*

    *position<sub>t+1</sub> = position<sub>t</sub> + velocity<sub>t+1</sub>*

    with the clipped force and power = 0.0015. The velocity is clipped to `[-0.07, 0.07]` and the
    position to `[-1.2, 0.6]`; the collision with the left wall is inelastic (the velocity is set to 0
    there). The state is kept in float32 after each step, as in gymnasium.

    ## Reward

    *-0.1 * action<sup>2</sup>* at each step (with the action as given, before clipping) penalises
    large forces; reaching the goal adds +100 to that step's reward.

    ## Starting State

    The position is drawn uniformly from `[-0.6 , -0.4]`; the velocity is 0.

    ## Episode End

    1. Termination: the position is at least 0.45 (the goal on top of the right hill) and the
       velocity at least `goal_velocity`.
    2. Truncation: the episode lasts 999 steps.

    ## Arguments

    - `goal_velocity` (default `0`): the velocity the car must (at least) have at the goal.
    - `render_mode`: `"human"` or `"rgb_array"`.

    `reset(options={"low": ..., "high": ...})` changes the range of the starting position.

    ```python
    >>> import nbgym
    >>> env = nbgym.make("MountainCarContinuous-v0", render_mode="rgb_array", goal_velocity=0.1)  # default 0
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<Continuous_MountainCarEnv<MountainCarContinuous-v0>>>>>
    >>> env.reset(seed=123, options={"low": -0.7, "high": -0.5})  # default low=-0.6, high=-0.4
    (array([-0.5635296,  0.       ], dtype=float32), {})

    ```

    The dynamics are compiled: `nbgym.make_vec("MountainCarContinuous-v0", num_envs=4096)` steps all
    sub-environments in one call (`Continuous_MountainCarVectorEnv`). The constants `min_action`,
    `max_action`, `min_position`, `max_position`, `max_speed`, `goal_position`, `goal_velocity` and
    `power` are attributes, as in gymnasium, and changing them changes the following steps.

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
        self.low_state, self.high_state = state_bounds(self._params)

    def _height(self, xs: Any) -> Any:
        """The track's height at positions ``xs``, as gymnasium's frame draws it: ``sin(3 xs) * 0.45 + 0.55``."""
        return np.sin(3 * xs) * 0.45 + 0.55


Continuous_MountainCarVectorEnv = vector_env_class(
    Continuous_MountainCarEnv,
    doc="""MountainCarContinuous's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("MountainCarContinuous-v0", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions (float32 or float64 batches), in every
    autoreset mode. See ``Continuous_MountainCarEnv`` for the environment and ``KernelVectorEnv`` for
    the vector arguments.
    """,
)
