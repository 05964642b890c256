"""CartPole: balance a pole on a cart, as gymnasium's ``CartPole-v0``/``CartPole-v1``, on the compiled engine."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import logger, spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, npmath, rng, vector_env_class
from nbgym.engine.state_views import float64_state
from nbgym.envs.classic_control._options import ResetBoundsOption


def _reset(params, state, i, stream, aux):
    for k in range(4):
        state[i, k] = rng.uniform(stream, i, params._reset_low, params._reset_high)


def _step(params, state, i, actions, stream, aux):
    x = state[i, 0]
    x_dot = state[i, 1]
    theta = state[i, 2]
    theta_dot = state[i, 3]
    force = params.force_mag if actions[i] == 1 else -params.force_mag
    sintheta, costheta = npmath.sincos(theta)
    temp = (force + params.polemass_length * (theta_dot * theta_dot) * sintheta) / params.total_mass
    thetaacc = (params.gravity * sintheta - costheta * temp) / (
        params.length * (4.0 / 3.0 - params.masspole * (costheta * costheta) / params.total_mass)
    )
    xacc = temp - params.polemass_length * thetaacc * costheta / params.total_mass
    if params.euler_integrator:
        x = x + params.tau * x_dot
        x_dot = x_dot + params.tau * xacc
        theta = theta + params.tau * theta_dot
        theta_dot = theta_dot + params.tau * thetaacc
    else:
        x_dot = x_dot + params.tau * xacc
        x = x + params.tau * x_dot
        theta_dot = theta_dot + params.tau * thetaacc
        theta = theta + params.tau * theta_dot
    state[i, 0] = x
    state[i, 1] = x_dot
    state[i, 2] = theta
    state[i, 3] = theta_dot
    terminated = (
        x < -params.x_threshold
        or x > params.x_threshold
        or theta < -params.theta_threshold_radians
        or theta > params.theta_threshold_radians
    )
    if params.sutton_barto_reward:
        return (-1.0 if terminated else 0.0), terminated
    return 1.0, terminated


def _observe(params, state, i, obs):
    for k in range(4):
        obs[i, k] = np.float32(state[i, k])


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 2


PHYSICS = Physics(
    "CartPole",
    params=[
        ("gravity", np.float64),
        ("masscart", np.float64),
        ("masspole", np.float64),
        ("total_mass", np.float64),
        ("length", np.float64),
        ("polemass_length", np.float64),
        ("force_mag", np.float64),
        ("tau", np.float64),
        ("theta_threshold_radians", np.float64),
        ("x_threshold", np.float64),
        ("euler_integrator", np.bool_),
        ("sutton_barto_reward", np.bool_),
        ("_reset_low", np.float64),
        ("_reset_high", np.float64),
    ],
    state=(4, np.float64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
)


def _new_params(sutton_barto_reward: bool) -> np.ndarray:
    masscart, masspole, length = 1.0, 0.1, 0.5
    return PHYSICS.new_params(
        gravity=9.8,
        masscart=masscart,
        masspole=masspole,
        total_mass=masspole + masscart,
        length=length,
        polemass_length=masspole * length,
        force_mag=10.0,
        tau=0.02,
        theta_threshold_radians=12 * 2 * math.pi / 360,
        x_threshold=2.4,
        euler_integrator=True,
        sutton_barto_reward=bool(sutton_barto_reward),
        _reset_low=-0.05,
        _reset_high=0.05,
    )


class _CartPole(ResetBoundsOption):
    """What CartPole's single and vector envs share: the physics, the parameters and spaces of the arguments,
    the attributes gymnasium's CartPole envs expose beyond their physics parameters, and the reset options."""

    physics = PHYSICS
    renderer = "nbgym.envs._render.cartpole"
    frame_size_attributes = {
        "screen_width": lambda env, width, height: width,
        "screen_height": lambda env, width, height: height,
    }
    _params: np.ndarray
    _default_reset_bounds = (-0.05, 0.05)

    def _configure(self, arguments: Any) -> np.ndarray:
        return _new_params(arguments.sutton_barto_reward)

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Discrete]:
        params = self._params
        high = np.array(
            [params["x_threshold"][0] * 2, np.inf, params["theta_threshold_radians"][0] * 2, np.inf], dtype=np.float32
        )
        return spaces.Box(-high, high, dtype=np.float32), spaces.Discrete(2)

    asserts_action_in_space = True  # gymnasium asserts action_space.contains(action)
    state_views = (float64_state("state", 0, 4, before_reset=None),)

    @property
    def kinematics_integrator(self) -> str:
        """``"euler"`` (the default) or ``"semi-implicit euler"``: any other value means the latter, as in gymnasium."""
        return "euler" if self._params["euler_integrator"][0] else "semi-implicit euler"

    @kinematics_integrator.setter
    def kinematics_integrator(self, value: str) -> None:
        self._params["euler_integrator"] = value == "euler"

    @property
    def _sutton_barto_reward(self) -> bool:
        """gymnasium's name of ``sutton_barto_reward``, which its step reads: the same parameter."""
        return self.sutton_barto_reward

    @_sutton_barto_reward.setter
    def _sutton_barto_reward(self, value: bool) -> None:
        self.sutton_barto_reward = value


class CartPoleEnv(_CartPole, KernelEnv):
    """
    ## Description

    The cart-pole problem of Barto, Sutton and Anderson, ["Neuronlike Adaptive Elements That Can Solve
    Difficult Learning Control Problem"](https://ieeexplore.ieee.org/document/6313077): a pole is
    attached by an un-actuated joint to a cart moving along a frictionless track. The pole starts
    upright; the goal is to keep it balanced by pushing the cart left or right.

    ## Action Space

    `Discrete(2)`: the direction of the fixed force pushing the cart.

    - 0: Push cart to the left
    - 1: Push cart to the right

    The velocity change caused by the force depends on the pole's angle: the pole's centre of gravity
    changes how much energy it takes to move the cart underneath it.

    ## Observation Space

    An `ndarray` of shape `(4,)`, dtype `float32`:

    | Num | Observation           | Min                 | Max               |
    |-----|-----------------------|---------------------|-------------------|
    | 0   | Cart Position         | -4.8                | 4.8               |
    | 1   | Cart Velocity         | -Inf                | Inf               |
    | 2   | Pole Angle            | ~ -0.418 rad (-24°) | ~ 0.418 rad (24°) |
    | 3   | Pole Angular Velocity | -Inf                | Inf               |

    These are the bounds of the observation space, not of the states an episode can reach: the
    episode terminates when the cart position leaves `(-2.4, 2.4)` or the pole angle leaves
    `(-.2095, .2095)` (±12°).

    ## Rewards

    +1 for every step taken, including the termination step (the threshold is 500 for v1, 200 for v0).
    With `sutton_barto_reward=True`: 0 for every non-terminating step and -1 for the terminating one.
    Stepping again after termination gives 0 (-1 with `sutton_barto_reward`) and warns once.

    ## Starting State

    All observations are drawn uniformly from `(-0.05, 0.05)`; `reset(options={"low": ..., "high": ...})`
    changes that range.

    ## Episode End

    1. Termination: Pole Angle is greater than ±12°.
    2. Termination: Cart Position is greater than ±2.4 (the cart's centre reaches the display's edge).
    3. Truncation: Episode length is greater than 500 (200 for v0), applied by `make`'s `TimeLimit`.

    ## Arguments

    - `sutton_barto_reward` (bool, default `False`): the reward function of Sutton and Barto's paper.
    - `render_mode`: `"human"` or `"rgb_array"`.

    ```python
    >>> import nbgym
    >>> env = nbgym.make("CartPole-v1")
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<CartPoleEnv<CartPole-v1>>>>>
    ```

    The dynamics are compiled: `nbgym.make_vec("CartPole-v1", num_envs=4096)` steps all
    sub-environments in one call (`CartPoleVectorEnv`). The physical constants (`gravity`, `masscart`,
    `masspole`, `length`, `force_mag`, `tau`, ...) are attributes, as in gymnasium, and changing them
    changes the following steps.

    ## Version History

    * v1: `max_time_steps` raised to 500; `sutton_barto_reward` argument (gymnasium 1.0).
    * v0: Initial version release.
    """

    window_attributes = ("screen", "clock", "isopen")

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 50}
    # In a render mode it does not list, gymnasium's environment returns None from render().
    unlisted_render_mode = "none"

    @declares_arguments
    def __init__(self, sutton_barto_reward: bool = False, render_mode: str | None = None) -> None:
        self.steps_beyond_terminated: int | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        result = super().reset(seed=seed, options=options)
        self.steps_beyond_terminated = None
        return result

    def _terminal_reward(self, reward: float) -> float:
        if self.steps_beyond_terminated is None:
            self.steps_beyond_terminated = 0
            return reward
        if self.steps_beyond_terminated == 0:
            logger.warn(
                "You are calling 'step()' even though this environment has already returned terminated = True. "
                "You should always call 'reset()' once you receive 'terminated = True' -- any further steps are "
                "undefined behavior."
            )
        self.steps_beyond_terminated += 1
        return -1.0 if self._sutton_barto_reward else 0.0


class CartPoleVectorEnv(vector_env_class(CartPoleEnv)):
    """CartPole's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("CartPole-v1", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions, in every autoreset mode, with the arguments
    and attributes of gymnasium's ``CartPoleVectorEnv``. See ``CartPoleEnv`` for the environment and
    ``KernelVectorEnv`` for the vector options.
    """

    sync_stand_in = False  # gymnasium registers its own CartPoleVectorEnv, which this class reproduces

    # gymnasium's CartPoleVectorEnv's attributes of the whole batch (its rendering constants: frame_size_attributes).
    steps_beyond_terminated = None
    """``None``, as gymnasium's vector CartPole keeps it (``get_attr`` gives each sub-environment's)."""
    _BATCH_ATTRIBUTES = frozenset({"state", "steps", "prev_done"})

    def _batch_arrays(self) -> Any:
        """The batch, after the state values read or assigned per sub-environment are written back and let go
        (the arrays below are then the one truth)."""
        self._write_back_held()
        self._release_held()
        return self._batch

    @property
    def state(self) -> np.ndarray | None:
        """The ``(4, num_envs)`` float64 state, as gymnasium's ``CartPoleVectorEnv.state``; ``None`` before the first
        ``reset()``. A live view of the kernels' state rows: writes into it (``envs.state[2, 0] = 0.1``) reach the
        next step."""
        if not self._state_was_reset:
            return None
        return self._batch_arrays().state.T

    @state.setter
    def state(self, value: Any) -> None:
        value = np.asarray(value, dtype=np.float64)
        if value.shape != (4, self.num_envs):
            raise ValueError(
                f"CartPoleVectorEnv.state is shaped (4, num_envs) = {(4, self.num_envs)}, got {value.shape}."
            )
        self._batch_arrays().state[:] = value.T

    @property
    def steps(self) -> np.ndarray:
        """Each sub-environment's steps since its reset, as gymnasium's ``CartPoleVectorEnv.steps`` (int64 here,
        int32 there); a live view of the kernels' counters (the time limit reads them)."""
        return self._batch.elapsed

    @steps.setter
    def steps(self, value: Any) -> None:
        self._batch.elapsed[:] = value

    @property
    def prev_done(self) -> np.ndarray:
        """Whether each sub-environment's last step ended its episode (it starts again on the next step), as
        gymnasium's ``CartPoleVectorEnv.prev_done``; a live view of the kernels' flags."""
        return self._batch.needs_reset

    @prev_done.setter
    def prev_done(self, value: Any) -> None:
        self._batch.needs_reset[:] = value

    def _is_shared_attribute(self, name: str) -> bool:
        return name not in self._BATCH_ATTRIBUTES and super()._is_shared_attribute(name)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """As ``KernelVectorEnv.get_attr``, and ``steps_beyond_terminated`` as gymnasium's sync env gives its
        sub-environments': 0 after a step that terminated and was not reset in it, else ``None`` (an
        autoreset resets it, so it never counts further)."""
        if name == "steps_beyond_terminated":
            batch = self._batch
            return tuple(0 if ended else None for ended in (batch.terminated & ~batch.was_reset).tolist())
        return super().get_attr(name)

    def render(self) -> list[Any] | None:
        """The list of every sub-environment's current ``"rgb_array"`` frame, as gymnasium's ``CartPoleVectorEnv``
        returns in any render mode (``"rgb_array_list"`` from ``make_vec``, say); ``None`` without one."""
        if self.render_mode is None or self.render_mode in self.metadata["render_modes"]:
            frames = super().render()
            return None if frames is None else list(frames)
        from nbgym.engine import render_frame

        self._write_back_held()
        return [render_frame(self, index, "rgb_array") for index in range(self.num_envs)]
