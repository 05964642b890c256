"""Acrobot: swing a two-link chain up, as gymnasium's ``Acrobot-v1``, on the compiled engine.

One step integrates the dynamics with one fourth-order Runge-Kutta step over ``dt``, in the order of
operations of gymnasium's ``rk4`` over numpy arrays (elementwise float64, so scalars here give the same
bits). A reset rounds the drawn state to float32, and gymnasium then computes the observation's sines
and cosines of float32 scalars, with numpy's float32 functions: the kernel does the same (``npmath``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, njit, rng, vector_env_class
from nbgym.engine.actions import indexes_a_list
from nbgym.engine.npmath import cos32, float32_trig_is_simd, sin32, sincos, square
from nbgym.engine.state_views import FLOAT32, StateView, float_values
from nbgym.envs.classic_control._options import ResetBoundsOption
from nbgym.envs._read_only import ReadOnlyList

_GRAVITY = 9.8
_AVAIL_TORQUE = [-1.0, 0.0, +1]
_FRESH = 4  # state column: 1.0 while the state is the float32 one of a reset, 0.0 after a step


@njit
def _link_squares(params):
    """``(lc1**2, l1**2, lc2**2)``: the same in each of a step's four derivatives, so computed once per step."""
    return square(params.LINK_COM_POS_1), square(params.LINK_LENGTH_1), square(params.LINK_COM_POS_2)


@njit
def _dsdt(params, squares, theta1, theta2, dtheta1, dtheta2, a):
    """The time derivatives of ``(theta1, theta2, dtheta1, dtheta2)`` under torque ``a`` (the torque's is 0);
    ``squares`` is ``_link_squares(params)``."""
    m1 = params.LINK_MASS_1
    m2 = params.LINK_MASS_2
    l1 = params.LINK_LENGTH_1
    lc1 = params.LINK_COM_POS_1
    lc2 = params.LINK_COM_POS_2
    inertia = params.LINK_MOI
    g = _GRAVITY
    # gymnasium evaluates cos(theta2) twice and sin(theta2) three times: the same values.
    sin2, cos2 = sincos(theta2)
    lc1_squared, l1_squared, lc2_squared = squares
    d1 = m1 * lc1_squared + m2 * (l1_squared + lc2_squared + 2 * l1 * lc2 * cos2) + inertia + inertia
    d2 = m2 * (lc2_squared + l1 * lc2 * cos2) + inertia
    phi2 = m2 * lc2 * g * math.cos(theta1 + theta2 - math.pi / 2.0)
    phi1 = (
        -m2 * l1 * lc2 * square(dtheta2) * sin2
        - 2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sin2
        + (m1 * lc1 + m2 * l1) * g * math.cos(theta1 - math.pi / 2)
        + phi2
    )
    denominator = m2 * lc2_squared + inertia - square(d2) / d1
    if params._nips:
        ddtheta2 = (a + d2 / d1 * phi1 - phi2) / denominator
    else:
        ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * square(dtheta1) * sin2 - phi2) / denominator
    ddtheta1 = -(d2 * ddtheta2 + phi1) / d1
    return dtheta1, dtheta2, ddtheta1, ddtheta2


_MOST_WRAPS = 2.0**30
"""The most turns ``_wrap`` adds or subtracts (a second or two here; gymnasium's Python loop takes minutes). An angle
further out, which only a written state can give (a huge velocity integrated), is refused: beyond ~2.8e16 the
subtraction no longer changes it and gymnasium's step hangs forever, and short of that it runs for hours or days."""


@njit
def _wrap(x, low, high):
    span = high - low
    if abs(x) > _MOST_WRAPS * span:
        raise ValueError(
            "Acrobot's next angle is beyond 2**30 turns (a written state's velocity integrated): gymnasium's step "
            "wraps it into [-pi, pi] one turn at a time, which takes hours or never ends. Write a smaller state."
        )
    while x > high:
        x = x - span
    while x < low:
        x = x + span
    return x


@njit
def _bound(x, low, high):
    x = low if low > x else x
    return high if high < x else x


def wrap(x: Any, m: Any, M: Any) -> Any:
    """Wraps ``x`` into ``[m, M]`` by whole turns of ``M - m`` (gymnasium's ``acrobot.wrap``): ``wrap(370, -180, 180)``
    is 10. Python's arithmetic on the values given, one turn at a time, as gymnasium's (the kernels' own ``_wrap`` is
    compiled for their float64 state, and refuses angles too far out to wrap).

    Args:
        x: The value to wrap.
        m: The lowest value of the range.
        M: The highest value of the range.

    Returns:
        ``x`` plus or minus whole turns of ``M - m``, in ``[m, M]``.
    """
    turn = M - m
    while x > M:
        x = x - turn
    while x < m:
        x = x + turn
    return x


def bound(x: Any, m: Any, M: Any = None) -> Any:
    """``x`` clipped to ``[m, M]`` (gymnasium's ``acrobot.bound``), or to ``[m[0], m[1]]`` when ``M`` is None.

    Args:
        x: The value to clip.
        m: The lowest value, or a pair ``(lowest, highest)``.
        M: The highest value (``None``: ``m[1]``).

    Returns:
        ``min(max(x, m), M)``.
    """
    if M is None:
        m, M = m[0], m[1]
    return min(max(x, m), M)


def rk4(derivs: Any, y0: Any, t: Any) -> np.ndarray:
    """Integrates ``dy = derivs(y)`` from ``y0`` over the times ``t`` by fourth-order Runge-Kutta steps, in float64
    (gymnasium's ``acrobot.rk4``, which Acrobot's step calls as ``rk4(self._dsdt, [*state, torque], [0, dt])``).

    Args:
        derivs: The derivative: a function of the state returning a sequence of its rates.
        y0: The initial state: a number or a sequence.
        t: The times, one more than the steps.

    Returns:
        The first four values of the state at ``t[-1]`` (a float64 array; as gymnasium's, the state's last value,
        Acrobot's torque, is dropped).
    """
    try:
        width = len(y0)
    except TypeError:
        states = np.zeros((len(t),), np.float64)
    else:
        states = np.zeros((len(t), width), np.float64)
    states[0] = y0
    for i in np.arange(len(t) - 1):
        dt = t[i + 1] - t[i]
        half = dt / 2.0
        y = states[i]
        k1 = np.asarray(derivs(y))
        k2 = np.asarray(derivs(y + half * k1))
        k3 = np.asarray(derivs(y + half * k2))
        k4 = np.asarray(derivs(y + dt * k3))
        states[i + 1] = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return states[-1][:4]


def _reset(params, state, i, stream, aux):
    for k in range(4):
        state[i, k] = np.float32(rng.uniform(stream, i, params._reset_low, params._reset_high))
    state[i, _FRESH] = 1.0


def _step(params, state, i, actions, stream, aux):
    torque = params._avail_torque[actions[i]]
    if params.torque_noise_max > 0:
        torque += rng.uniform(stream, i, -params.torque_noise_max, params.torque_noise_max)
    y1, y2, y3, y4, y5 = state[i, 0], state[i, 1], state[i, 2], state[i, 3], torque
    dt = params.dt
    dt2 = dt / 2.0
    # k[4], the torque's derivative, is 0.0: `y5 + h * 0.0` keeps gymnasium's (signed-zero) arithmetic.
    squares = _link_squares(params)
    k11, k12, k13, k14 = _dsdt(params, squares, y1, y2, y3, y4, y5)
    k21, k22, k23, k24 = _dsdt(
        params, squares, y1 + dt2 * k11, y2 + dt2 * k12, y3 + dt2 * k13, y4 + dt2 * k14, y5 + dt2 * 0.0
    )
    k31, k32, k33, k34 = _dsdt(
        params, squares, y1 + dt2 * k21, y2 + dt2 * k22, y3 + dt2 * k23, y4 + dt2 * k24, y5 + dt2 * 0.0
    )
    k41, k42, k43, k44 = _dsdt(
        params, squares, y1 + dt * k31, y2 + dt * k32, y3 + dt * k33, y4 + dt * k34, y5 + dt * 0.0
    )
    h = dt / 6.0
    theta1 = _wrap(y1 + h * (k11 + 2 * k21 + 2 * k31 + k41), -math.pi, math.pi)
    theta2 = _wrap(y2 + h * (k12 + 2 * k22 + 2 * k32 + k42), -math.pi, math.pi)
    dtheta1 = _bound(y3 + h * (k13 + 2 * k23 + 2 * k33 + k43), -params.MAX_VEL_1, params.MAX_VEL_1)
    dtheta2 = _bound(y4 + h * (k14 + 2 * k24 + 2 * k34 + k44), -params.MAX_VEL_2, params.MAX_VEL_2)
    state[i, 0] = theta1
    state[i, 1] = theta2
    state[i, 2] = dtheta1
    state[i, 3] = dtheta2
    state[i, _FRESH] = 0.0
    terminated = -math.cos(theta1) - math.cos(theta2 + theta1) > 1.0
    return (0.0 if terminated else -1.0), terminated


def _observe(params, state, i, obs):
    if state[i, _FRESH] != 0.0:
        theta1 = np.float32(state[i, 0])
        theta2 = np.float32(state[i, 1])
        obs[i, 0] = cos32(theta1, params._simd_trig)
        obs[i, 1] = sin32(theta1, params._simd_trig)
        obs[i, 2] = cos32(theta2, params._simd_trig)
        obs[i, 3] = sin32(theta2, params._simd_trig)
    else:
        sin1, cos1 = sincos(state[i, 0])
        sin2, cos2 = sincos(state[i, 1])
        obs[i, 0] = np.float32(cos1)
        obs[i, 1] = np.float32(sin1)
        obs[i, 2] = np.float32(cos2)
        obs[i, 3] = np.float32(sin2)
    obs[i, 4] = np.float32(state[i, 2])
    obs[i, 5] = np.float32(state[i, 3])


def _action_valid(params, actions, i):
    return -3 <= actions[i] < 3  # gymnasium's AVAIL_TORQUE[a] counts negative actions from the end


PHYSICS = Physics(
    "Acrobot",
    params=[
        ("dt", np.float64),
        ("LINK_LENGTH_1", np.float64),
        ("LINK_LENGTH_2", np.float64),
        ("LINK_MASS_1", np.float64),
        ("LINK_MASS_2", np.float64),
        ("LINK_COM_POS_1", np.float64),
        ("LINK_COM_POS_2", np.float64),
        ("LINK_MOI", np.float64),
        ("MAX_VEL_1", np.float64),
        ("MAX_VEL_2", np.float64),
        ("torque_noise_max", np.float64),
        ("_avail_torque", np.float64, (3,)),
        ("_nips", np.bool_),
        ("_reset_low", np.float64),
        ("_reset_high", np.float64),
        ("_simd_trig", np.bool_),
    ],
    state=(5, np.float64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    read_action=indexes_a_list(3),
)


def _new_params() -> np.ndarray:
    params = PHYSICS.new_params(
        dt=0.2,
        LINK_LENGTH_1=1.0,
        LINK_LENGTH_2=1.0,
        LINK_MASS_1=1.0,
        LINK_MASS_2=1.0,
        LINK_COM_POS_1=0.5,
        LINK_COM_POS_2=0.5,
        LINK_MOI=1.0,
        MAX_VEL_1=4 * math.pi,
        MAX_VEL_2=9 * math.pi,
        torque_noise_max=0.0,
        _nips=False,
        _reset_low=-0.1,
        _reset_high=0.1,
        _simd_trig=float32_trig_is_simd(),
    )
    params["_avail_torque"] = _AVAIL_TORQUE
    return params


def _spaces(params: np.ndarray) -> tuple[spaces.Box, spaces.Discrete]:
    high = np.array([1.0, 1.0, 1.0, 1.0, params["MAX_VEL_1"][0], params["MAX_VEL_2"][0]], dtype=np.float32)
    return spaces.Box(low=-high, high=high, dtype=np.float32), spaces.Discrete(3)


def _read_state(params: np.record, row: np.ndarray) -> np.ndarray:
    return np.array(row[:4], dtype=np.float32 if row[_FRESH] else np.float64)


def _write_state(params: np.record, row: np.ndarray, value: Any) -> None:
    # Only the observation depends on the precision: a float32 state is observed as a reset's is.
    values, precision = float_values(value, 4, "state")
    if np.isinf(values[:2]).any():
        raise ValueError(
            f"state's angles must be finite, got {value!r}: the step wraps them into [-pi, pi] by adding or "
            f"subtracting 2 pi until they are, which never ends for an infinite angle (gymnasium's step hangs)."
        )
    row[:4] = values
    row[_FRESH] = 1.0 if precision == FLOAT32 else 0.0


class _AcrobotAttributes(ResetBoundsOption):
    """gymnasium's Acrobot attributes beyond the physical constants, and the reset options."""

    physics = PHYSICS
    renderer = "nbgym.envs._render.acrobot"
    frame_size_attributes = {"SCREEN_DIM": lambda env, width, height: width}

    def _configure(self, arguments: Any) -> np.ndarray:
        return _new_params()

    def _single_spaces(self) -> tuple[spaces.Space, spaces.Space]:
        return _spaces(self._params)

    _default_reset_bounds = (-0.1, 0.1)
    state_views = (
        StateView(
            "state",
            _read_state,
            _write_state,
            """``[theta1, theta2, dtheta1, dtheta2]`` as gymnasium's ``env.unwrapped.state``: float32 after a
            reset, float64 after a step. Assigning it sets the state (a float32 array as a reset's).""",
            before_reset=None,
        ),
    )

    action_arrow = None
    domain_fig = None
    actions_num = 3
    _book_or_nips = "book"
    _avail_torque = _AVAIL_TORQUE

    @property
    def book_or_nips(self) -> str:
        """``"book"`` (the default): the dynamics of Sutton and Barto's book; ``"nips"``: those of the NeurIPS
        paper, which miss a term. Any other value means the book's, as in gymnasium."""
        return self._book_or_nips

    @book_or_nips.setter
    def book_or_nips(self, value: str) -> None:
        self._book_or_nips = value
        self._params["_nips"] = value == "nips"

    @property
    def AVAIL_TORQUE(self) -> list[float]:
        """The torques of the three actions, ``[-1.0, 0.0, +1]``. Assigning a new list changes the dynamics; the list
        read refuses changes in place, which the kernels, reading the torques from their parameters, would not see."""
        return ReadOnlyList(
            self._avail_torque,
            "AVAIL_TORQUE cannot be changed in place in nbgym (its kernels read the torques from their parameters): "
            "assign a new list instead, e.g. env.unwrapped.AVAIL_TORQUE = [-2.0, 0.0, 2.0].",
        )

    @AVAIL_TORQUE.setter
    def AVAIL_TORQUE(self, value: list[float]) -> None:
        self._params["_avail_torque"] = value
        self._avail_torque = value


class AcrobotEnv(_AcrobotAttributes, KernelEnv):
    """
    ## Description

    The Acrobot of Sutton's ["Generalization in Reinforcement Learning: Successful Examples Using
    Sparse Coarse Coding"](https://papers.nips.cc/paper/1995/hash/8f1d43620bc6bb580df6e80b0dc05c48-Abstract.html)
    and of [Sutton and Barto's book](http://www.incompleteideas.net/book/the-book-2nd.html): two links
    joined in a chain, one end of which is fixed. Only the joint between the two links is actuated.
    Starting from the chain hanging downwards, the goal is to apply torques on that joint so as to
    swing the free end of the chain above a given height.

    ## Action Space

    `Discrete(3)`, deterministic: the torque applied on the actuated joint.

    | Num | Action                                | Unit         |
    |-----|---------------------------------------|--------------|
    | 0   | apply -1 torque to the actuated joint | torque (N m) |
    | 1   | apply 0 torque to the actuated joint  | torque (N m) |
    | 2   | apply 1 torque to the actuated joint  | torque (N m) |

    ## Observation Space

    An `ndarray` of shape `(6,)`, dtype `float32`: the two joint angles, by their sines and cosines,
    and the two angular velocities.

    | Num | Observation                  | Min                 | Max               |
    |-----|------------------------------|---------------------|-------------------|
    | 0   | Cosine of `theta1`           | -1                  | 1                 |
    | 1   | Sine of `theta1`             | -1                  | 1                 |
    | 2   | Cosine of `theta2`           | -1                  | 1                 |
    | 3   | Sine of `theta2`             | -1                  | 1                 |
    | 4   | Angular velocity of `theta1` | ~ -12.567 (-4 * pi) | ~ 12.567 (4 * pi) |
    | 5   | Angular velocity of `theta2` | ~ -28.274 (-9 * pi) | ~ 28.274 (9 * pi) |

    `theta1` is the angle of the first joint, 0 meaning the first link points straight down;
    `theta2` is the angle of the second link *relative to the first*, 0 meaning both links are
    aligned. The angular velocities are bounded at ±4π and ±9π rad/s. `[1, 0, 1, 0, ..., ...]` is the
    chain hanging straight down.

    ## Rewards

    -1 for every step that does not reach the target height; the step that reaches it terminates
    the episode with reward 0. The reward threshold is -100.

    ## Starting State

    `theta1`, `theta2` and the two angular velocities are each drawn uniformly from `[-0.1, 0.1]`
    (then rounded to float32, as gymnasium does): both links hang down, slightly perturbed.

    ## Episode End

    1. Termination: the free end reaches the target height, `-cos(theta1) - cos(theta2 + theta1) > 1.0`.
    2. Truncation: the episode lasts 500 steps (200 for v0).

    ## Arguments

    Only `render_mode` (`"human"` or `"rgb_array"`). `reset(options={"low": ..., "high": ...})` changes
    the range of the starting state.

    ```python
    >>> import nbgym
    >>> env = nbgym.make('Acrobot-v1', render_mode="rgb_array")
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<AcrobotEnv<Acrobot-v1>>>>>
    >>> env.reset(seed=123, options={"low": -0.2, "high": 0.2})  # default low=-0.1, high=0.1
    (array([ 0.997341  ,  0.07287608,  0.9841162 , -0.17752565, -0.11185605,
           -0.12625128], dtype=float32), {})

    ```

    The dynamics follow Sutton and Barto's book by default
    ([Reinforcement Learning: An Introduction](http://incompleteideas.net/book/11/node4.html)); those
    of the original NeurIPS paper, which miss some terms, are selected with

    ```python
    env.unwrapped.book_or_nips = 'nips'
    ```

    > R. Sutton confirmed in personal correspondence that the results of the paper and of the book were
      produced with the book's equations.

    `env.unwrapped.torque_noise_max > 0` adds to each torque a uniform noise in
    `[-torque_noise_max, torque_noise_max]`, drawn from the environment's random generator.

    ## Integration timestep

    `Acrobot-v1` integrates with one fourth-order Runge-Kutta step of `dt = 0.2` s per step. A smaller
    timestep (less integration error) can be set on the unwrapped environment:

    ```python
    env = nbgym.make("Acrobot-v1")
    env.unwrapped.dt = 0.05
    ```

    The dynamics are compiled: `nbgym.make_vec("Acrobot-v1", num_envs=4096)` steps all sub-environments
    in one call (`AcrobotVectorEnv`). The constants (`dt`, `LINK_LENGTH_1`, `LINK_MASS_1`,
    `LINK_COM_POS_1`, `LINK_MOI`, `MAX_VEL_1`, `AVAIL_TORQUE`, ...) are attributes, as in gymnasium,
    and changing them changes the following steps.

    ## Version History

    - v1: Maximum number of steps increased from 200 to 500. The observation space for v0 provided direct
      readings of `theta1` and `theta2` in radians, in `[-pi, pi]`; v1 provides the sine and cosine of
      each angle instead.
    - v0: Initial versions release

    ## References

    - Sutton, R. S. (1996). Generalization in Reinforcement Learning: Successful Examples Using Sparse Coarse Coding.
        In D. Touretzky, M. C. Mozer, & M. Hasselmo (Eds.), Advances in Neural Information Processing Systems (Vol. 8).
        MIT Press. https://proceedings.neurips.cc/paper/1995/file/8f1d43620bc6bb580df6e80b0dc05c48-Paper.pdf
    - Sutton, R. S., Barto, A. G. (2018 ). Reinforcement Learning: An Introduction. The MIT Press.
    """

    window_attributes = ("screen", "clock", "isopen")
    class_constants = frozenset(
        {
            "dt", "LINK_LENGTH_1", "LINK_LENGTH_2", "LINK_MASS_1", "LINK_MASS_2", "LINK_COM_POS_1", "LINK_COM_POS_2",
            "LINK_MOI", "MAX_VEL_1", "MAX_VEL_2", "AVAIL_TORQUE", "torque_noise_max", "SCREEN_DIM", "book_or_nips",
        }
    )  # fmt: skip

    gymnasium_hooks = {"_get_ob": ("step", "reset"), "_dsdt": ("step",), "_terminal": ("step",)}
    observation_hook = "_get_ob"

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 15}
    # In a render mode it does not list, gymnasium's environment returns None from render().
    unlisted_render_mode = "none"

    @declares_arguments
    def __init__(self, render_mode: str | None = None) -> None:
        """The env's arguments, as gymnasium's (see Arguments above)."""

    def _dsdt(self, s_augmented: Any) -> tuple[Any, Any, Any, Any, float]:
        """gymnasium's time derivatives of ``s_augmented = [theta1, theta2, dtheta1, dtheta2, torque]`` under this
        env's constants and ``book_or_nips``, in numpy's arithmetic on what it is given (float32 values give float32
        rates): ``(dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0)``. The step integrates the same dynamics compiled, in
        float64; this is for code that calls the dynamics itself (``rk4(env._dsdt, ...)``)."""
        m1, m2 = self.LINK_MASS_1, self.LINK_MASS_2
        l1, lc1, lc2 = self.LINK_LENGTH_1, self.LINK_COM_POS_1, self.LINK_COM_POS_2
        inertia = self.LINK_MOI
        g = _GRAVITY
        a = s_augmented[-1]
        s = s_augmented[:-1]
        theta1, theta2, dtheta1, dtheta2 = s[0], s[1], s[2], s[3]
        d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * np.cos(theta2)) + inertia + inertia
        d2 = m2 * (lc2**2 + l1 * lc2 * np.cos(theta2)) + inertia
        phi2 = m2 * lc2 * g * np.cos(theta1 + theta2 - np.pi / 2.0)
        phi1 = (
            -m2 * l1 * lc2 * dtheta2**2 * np.sin(theta2)
            - 2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * np.sin(theta2)
            + (m1 * lc1 + m2 * l1) * g * np.cos(theta1 - np.pi / 2)
            + phi2
        )
        if self.book_or_nips == "nips":  # the NeurIPS paper's dynamics
            ddtheta2 = (a + d2 / d1 * phi1 - phi2) / (m2 * lc2**2 + inertia - d2**2 / d1)
        else:  # the book's and the Java implementation's
            ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * dtheta1**2 * np.sin(theta2) - phi2) / (
                m2 * lc2**2 + inertia - d2**2 / d1
            )
        ddtheta1 = -(d2 * ddtheta2 + phi1) / d1
        return dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0

    def _terminal(self) -> bool:
        """Whether the state as it is now ends the episode: the free end above the bar, as gymnasium computes it."""
        s = self.state
        assert s is not None, "Call reset before using AcrobotEnv object."
        return bool(-np.cos(s[0]) - np.cos(s[1] + s[0]) > 1.0)

    def _get_ob(self) -> np.ndarray:
        """gymnasium's observation of ``state`` as it is now: the two angles' cosines and sines, then the two
        angular velocities, in float32."""
        s = self.state
        assert s is not None, "Call reset before using AcrobotEnv object."
        return np.array([np.cos(s[0]), np.sin(s[0]), np.cos(s[1]), np.sin(s[1]), s[2], s[3]], dtype=np.float32)


AcrobotVectorEnv = vector_env_class(
    AcrobotEnv,
    doc="""Acrobot's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("Acrobot-v1", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions, in every autoreset mode. See
    ``AcrobotEnv`` for the environment and ``KernelVectorEnv`` for the vector arguments.
    """,
)
