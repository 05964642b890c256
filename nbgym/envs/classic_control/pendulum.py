"""Pendulum: swing a pendulum up and keep it upright, as gymnasium's ``Pendulum-v1``, on the compiled engine."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, rng, vector_env_class, written
from nbgym.engine.npmath import clip, remainder, sincos, square
from nbgym.engine.state_views import StateView, float64_state
from nbgym.envs.classic_control.utils import verify_number_and_cast

DEFAULT_X = np.pi
DEFAULT_Y = 1.0
_LAST_TORQUE = 2  # state column: the clipped torque of the last step (gymnasium's `last_u`, drawn by render)
_LAST_TORQUE_KIND = 3  # state column: that torque's type, or that there is none (after a reset):
_NO_TORQUE, _TORQUE_FLOAT64, _TORQUE_FLOAT32 = -1.0, 0.0, 1.0
_PYTHON, _FLOAT64 = written.KIND_CODES[written.PYTHON], written.KIND_CODES[written.FLOAT64]  # kind codes


def angle_normalize(x: Any) -> Any:
    """``x`` (radians) brought into ``[-pi, pi)`` as gymnasium's ``pendulum.angle_normalize``: ``((x + pi) % 2 pi) - pi``
    in numpy's arithmetic on what it is given (the step computes the same in float64, compiled)."""
    return ((x + np.pi) % (2 * np.pi)) - np.pi


def _reset(params, state, i, stream, aux):
    state[i, 0] = rng.uniform(stream, i, -params._x_init, params._x_init)
    state[i, 1] = rng.uniform(stream, i, -params._y_init, params._y_init)
    state[i, _LAST_TORQUE_KIND] = _NO_TORQUE


def _step(params, state, i, actions, stream, aux):
    th = state[i, 0]
    thdot = state[i, 1]
    # gymnasium computes the torque terms in the action's dtype (NumPy 2 keeps a float32 action float32 against
    # Python floats), in float64 where a float64 meets them: a float64 action, a np.float64 max_torque (np.clip's
    # bounds), a np.float64 m or l (the gain 3 / (m * l**2)). The values are float64 variables throughout, float32
    # results held exactly.
    u = actions[i, 0]
    gain = 3.0 / (params.m * square(params.l))
    if actions.itemsize == 8 or params._max_torque_kind == _FLOAT64:
        u = clip(np.float64(u), -params.max_torque, params.max_torque)
        torque_cost = 0.001 * square(u)
        torque = gain * u
        torque_kind = _TORQUE_FLOAT64
    else:
        u32 = clip(np.float32(u), np.float32(-params.max_torque), np.float32(params.max_torque))
        torque_cost = np.float64(np.float32(0.001) * square(u32))
        if params._m_kind == _PYTHON and params._l_kind == _PYTHON:
            torque = np.float64(np.float32(gain) * u32)
        else:
            torque = gain * np.float64(u32)
        u = np.float64(u32)
        torque_kind = _TORQUE_FLOAT32
    angle = remainder(th + np.pi, 2 * np.pi) - np.pi
    costs = square(angle) + 0.1 * square(thdot) + torque_cost
    newthdot = thdot + (3 * params.g / (2 * params.l) * math.sin(th) + torque) * params.dt
    newthdot = clip(newthdot, -params.max_speed, params.max_speed)
    state[i, 0] = th + newthdot * params.dt
    state[i, 1] = newthdot
    state[i, _LAST_TORQUE] = u
    state[i, _LAST_TORQUE_KIND] = torque_kind
    return -costs, False


def _observe(params, state, i, obs):
    sine, cosine = sincos(state[i, 0])
    obs[i, 0] = np.float32(cosine)
    obs[i, 1] = np.float32(sine)
    obs[i, 2] = np.float32(state[i, 1])


def _action_valid(params, actions, i):
    # gymnasium lets a NaN torque turn the state into NaN for the rest of the episode; refuse it instead.
    return not math.isnan(actions[i, 0])


def _read_action(params: Any, u: Any) -> Any:
    """gymnasium's reading of an action: ``np.clip(u, -max_torque, max_torque)[0]``."""
    np.clip(u, -params.max_torque, params.max_torque)[0]
    return u


PHYSICS = Physics(
    "Pendulum",
    params=[
        ("max_speed", np.float64),
        ("max_torque", np.float64),
        ("dt", np.float64),
        ("g", np.float64),
        ("m", np.float64),
        ("l", np.float64),
        ("_x_init", np.float64),
        ("_y_init", np.float64),
        # The kinds of number written to m, l and max_torque (nbgym.engine.written), whose arithmetic meets the torque.
        (written.kind_field("max_torque"), np.int8),
        (written.kind_field("m"), np.int8),
        (written.kind_field("l"), np.int8),
    ],
    state=(4, np.float64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    read_action=_read_action,
)


def _new_params(g: float) -> np.ndarray:
    return PHYSICS.new_params(
        max_speed=8, max_torque=2.0, dt=0.05, g=g, m=1.0, l=1.0, _x_init=DEFAULT_X, _y_init=DEFAULT_Y
    )


def _spaces(params: np.ndarray) -> tuple[spaces.Box, spaces.Box]:
    max_torque = params["max_torque"][0].item()
    high = np.array([1.0, 1.0, params["max_speed"][0]], dtype=np.float32)
    return (
        spaces.Box(low=-high, high=high, dtype=np.float32),
        spaces.Box(low=-max_torque, high=max_torque, shape=(1,), dtype=np.float32),
    )


def read_last_u(params: np.record, row: np.ndarray) -> np.float32 | np.float64 | None:
    """The clipped torque of the last step, in the action's dtype, or ``None`` after a reset."""
    if row[_LAST_TORQUE_KIND] == _NO_TORQUE:
        return None
    torque = row[_LAST_TORQUE]
    return np.float32(torque) if row[_LAST_TORQUE_KIND] == _TORQUE_FLOAT32 else np.float64(torque)


def _write_last_u(params: np.record, row: np.ndarray, value: Any) -> None:
    if value is None:
        row[_LAST_TORQUE_KIND] = _NO_TORQUE
        return
    array = np.asarray(value)
    if array.shape != () or array.dtype.kind not in "iuf":
        raise ValueError(f"last_u must be None or a number (the torque the rendering draws), got {value!r}.")
    row[_LAST_TORQUE] = array
    row[_LAST_TORQUE_KIND] = _TORQUE_FLOAT32 if array.dtype == np.float32 else _TORQUE_FLOAT64


class _PendulumResetOptions:
    """Pendulum's reset options and state attribute, shared by the single and the vector env."""

    physics = PHYSICS
    renderer = "nbgym.envs._render.pendulum"
    frame_size_attributes = {"screen_dim": lambda env, width, height: width}
    # A float32 m or l would compute the gain in float32 (and l the gravity term): not reproduced, refused. A float32
    # max_torque clips as a Python float does (np.clip's result keeps the action's dtype).
    written_kinds = {
        "m": (written.PYTHON, written.FLOAT64, written.FLOAT64_0D),
        "l": (written.PYTHON, written.FLOAT64, written.FLOAT64_0D),
        "max_torque": written.WITH_KIND_FIELD,
    }

    def _configure(self, arguments: Any) -> np.ndarray:
        return _new_params(arguments.g)

    def _single_spaces(self) -> tuple[spaces.Space, spaces.Space]:
        return _spaces(self._params)

    _params: np.ndarray
    # Python floats would meet the float32 torque in the cost as float32 numbers.
    state_views = (
        float64_state("state", 0, 2, python_numbers=False),
        StateView(
            "last_u", read_last_u, _write_last_u, "The clipped torque of the last step, which the rendering draws."
        ),
    )

    def _reset_params(self, options: dict[str, Any] | None) -> np.ndarray:
        if options is None:
            return self._params
        x = verify_number_and_cast(options["x_init"] if "x_init" in options else DEFAULT_X)
        y = verify_number_and_cast(options["y_init"] if "y_init" in options else DEFAULT_Y)
        # The draw is `uniform(-high, high)`: numpy's checks of that range, with its errors.
        high = np.array([x, y])
        spans = high - -high
        if not np.all(np.isfinite(spans)):
            raise OverflowError("Range exceeds valid bounds")
        if np.any(spans < 0):
            raise ValueError("high - low < 0")
        params = self._params.copy()
        params["_x_init"], params["_y_init"] = x, y
        return params


class PendulumEnv(_PendulumResetOptions, KernelEnv):
    """
    ## Description

    The inverted pendulum swing-up problem, a classic of control theory: a pendulum hangs from a
    fixed pivot at one end, the other end is free. It starts at a random angle; the goal is to apply
    torque to the free end so as to swing it up into the upright position (centre of gravity right
    above the pivot) and keep it there.

    - `x-y`: cartesian coordinates of the pendulum's free end, in metres.
    - `theta`: the angle in radians, 0 being upright.
    - `tau`: the torque in `N m`, positive counter-clockwise.

    ## Action Space

    An `ndarray` of shape `(1,)`: the torque applied to the free end.

    | Num | Action | Min  | Max |
    |-----|--------|------|-----|
    | 0   | Torque | -2.0 | 2.0 |

    Torques outside the range are clipped to it; a NaN torque raises `InvalidAction`.

    ## Observation Space

    An `ndarray` of shape `(3,)`, dtype `float32`: the free end's coordinates and the angular velocity.

    | Num | Observation      | Min  | Max |
    |-----|------------------|------|-----|
    | 0   | x = cos(theta)   | -1.0 | 1.0 |
    | 1   | y = sin(theta)   | -1.0 | 1.0 |
    | 2   | Angular Velocity | -8.0 | 8.0 |

    ## Rewards

    *r = -(theta<sup>2</sup> + 0.1 * theta_dt<sup>2</sup> + 0.001 * torque<sup>2</sup>)*, computed from
    the state before the step, with `theta` normalised into *[-pi, pi]*. The lowest possible reward is
    *-(pi<sup>2</sup> + 0.1 * 8<sup>2</sup> + 0.001 * 2<sup>2</sup>) = -16.2736044*, the highest 0
    (upright, motionless, no torque). The reward is a `np.float64`.

    ## Starting State

    A random angle in *[-pi, pi]* and a random angular velocity in *[-1, 1]*.

    ## Episode Truncation

    The episode is truncated after 200 time steps; it never terminates.

    ## Arguments

    - `g`: the acceleration of gravity in *m s<sup>-2</sup>* used by the dynamics (default `10.0`).
    - `render_mode`: `"human"` or `"rgb_array"`.

    `reset(options={"x_init": ..., "y_init": ...})` changes the bounds of the starting angle
    (default `np.pi`) and angular velocity (default `1.0`); the draw is symmetric around 0.

    ```python
    >>> import nbgym
    >>> env = nbgym.make("Pendulum-v1", render_mode="rgb_array", g=9.81)  # default g=10.0
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<PendulumEnv<Pendulum-v1>>>>>
    >>> env.reset(seed=123, options={"x_init": np.pi/2, "y_init": 0.5})  # default x_init=np.pi, y_init=1.0
    (array([ 0.8403459 ,  0.54205054, -0.44617897], dtype=float32), {})

    ```

    The dynamics are compiled: `nbgym.make_vec("Pendulum-v1", num_envs=4096)` steps all
    sub-environments in one call (`PendulumVectorEnv`). The constants `max_speed`, `max_torque`,
    `dt`, `g`, `m` and `l` are attributes, as in gymnasium, and changing them changes the following
    steps.

    ## Version History

    * v1: Simplify the math equations, no difference in behavior.
    * v0: Initial versions release
    """

    window_attributes = ("screen", "clock", "isopen")

    gymnasium_hooks = {"_get_obs": ("step", "reset")}
    observation_hook = "_get_obs"

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}
    # gymnasium's environment returns its rgb_array frame in any mode it does not list.
    unlisted_render_mode = "frame"

    @declares_arguments
    def __init__(self, render_mode: str | None = None, g: float = 10.0) -> None:
        """The env's arguments, as gymnasium's (see Arguments above)."""

    def _reward(self) -> np.float64:
        return self._batch.rewards[0]

    def _get_obs(self) -> np.ndarray:
        """gymnasium's observation of ``state`` as it is now: ``[cos(theta), sin(theta), theta_dot]`` in float32."""
        theta, theta_dot = self.state
        return np.array([np.cos(theta), np.sin(theta), theta_dot], dtype=np.float32)


PendulumVectorEnv = vector_env_class(
    PendulumEnv,
    doc="""Pendulum's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("Pendulum-v1", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions, in every autoreset mode (float32
    actions compute the torque terms in float32 and float64 actions in float64, as gymnasium's env
    does). See ``PendulumEnv`` for the environment and ``KernelVectorEnv`` for the vector arguments.
    """,
)
