"""Swimmer-v5: make a three-link swimmer move forward in a viscous fluid, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from typing import Any


from nbgym.envs.mujoco import _forward, _sim
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import ACTION, CompiledMujocoEnv, InfoKey
from nbgym.envs.mujoco._sim import QPOS, QVEL, load
from nbgym.envs.mujoco import _health

X_POSITION, Y_POSITION, DISTANCE, X_VELOCITY, Y_VELOCITY, REWARD_FORWARD, REWARD_CTRL = range(7)


def _observe(params, data, i, obs):
    skipped = 2 if params._exclude_current_positions_from_observation else 0
    at = _sim.copy_out(obs, i, 0, data[QPOS], skipped, params._nq - skipped)
    _sim.copy_out(obs, i, at, data[QVEL], 0, params._nv)


def _reset(params, data, i, rng, aux):
    _sim.reset_data(params, data, i)
    scale = params._reset_noise_scale
    _sim.set_uniform(data[QPOS], params._init_qpos, params._nq, rng, i, -scale, scale)
    _sim.set_uniform(data[QVEL], params._init_qvel, params._nv, rng, i, -scale, scale)
    _sim.forward(params, data, i)
    _sim.positions_info(params, data, i, aux, X_POSITION)


def _step(params, data, i, actions, rng, aux):
    x_before = load(data[QPOS], 0)
    y_before = load(data[QPOS], 1)
    _sim.simulate(params, data, i, actions)
    dt = _sim.dt(params, data)
    x_velocity = (load(data[QPOS], 0) - x_before) / dt
    y_velocity = (load(data[QPOS], 1) - y_before) / dt
    forward_reward = params._forward_reward_weight * x_velocity
    ctrl_cost = _sim.weighted_action_cost(
        params, params._ctrl_cost_weight, params._ctrl_cost_weight_makes_float64, actions, i
    )
    _sim.positions_info(params, data, i, aux, X_POSITION)
    aux[i, X_VELOCITY] = x_velocity
    aux[i, Y_VELOCITY] = y_velocity
    aux[i, REWARD_FORWARD] = forward_reward
    aux[i, REWARD_CTRL] = -ctrl_cost
    return forward_reward - ctrl_cost, False


PHYSICS = _sim.physics(
    "Swimmer_v5",
    params=_forward.PARAMS,
    source=__file__,
    reset=_reset,
    step=_step,
    observe=_observe,
    aux_width=7,
)


class _Swimmer(_forward.ForwardMover):
    _positions = 2
    _needs_positions = ("Swimmer", "positions qpos[0] (x) and qpos[1] (y)")
    physics = PHYSICS
    _step_info_keys = (
        InfoKey("x_position", X_POSITION),
        InfoKey("y_position", Y_POSITION),
        InfoKey("distance_from_origin", DISTANCE),
        InfoKey("x_velocity", X_VELOCITY),
        InfoKey("y_velocity", Y_VELOCITY),
        InfoKey("reward_forward", REWARD_FORWARD),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_ctrl_cost_weight"),
    )
    _reset_info_keys = _step_info_keys[:3]
    _aux_columns = 7


class SwimmerEnv(_Swimmer, CompiledMujocoEnv):
    """
    ## Description

    Three segments joined by two rotors swim in a two-dimensional pool of viscous fluid; the goal is
    to move forward (right) as fast as possible.

    ## Action Space

    `Box(-1, 1, (2,), float32)`: the torques of the two rotors.

    ## Observation Space

    `Box(-inf, inf, (8,), float64)`: `qpos[2:]` (3 angles) and `qvel` (5); with
    `exclude_current_positions_from_observation=False` the front tip's x and y come first (10).

    ## Rewards

    `forward_reward - ctrl_cost`: `forward_reward_weight * dx/dt` and `ctrl_cost_weight * sum(action**2)`
    (in the action's dtype).

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Never terminates; truncated after 1000 steps.

    ## Arguments

    `xml_file="swimmer.xml"`, `frame_skip=4`, `default_camera_config=None`, `forward_reward_weight=1.0`,
    `ctrl_cost_weight=1e-4`, `reset_noise_scale=0.1`, `exclude_current_positions_from_observation=True`,
    and `MujocoEnv`'s. `info`: `x_position`, `y_position`, `distance_from_origin`, `x_velocity`,
    `y_velocity`, `reward_forward`, `reward_ctrl` (reset: the first three).

    ## Version History

    * v5: minimum mujoco 2.3.3; more arguments (gymnasium 1.0). v4: mujoco bindings. v3, v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "swimmer.xml",
        frame_skip: int = 4,
        default_camera_config: dict[str, float | int] | None = None,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-4,
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        skipped = 2 * exclude_current_positions_from_observation
        self.observation_structure = {"skipped_qpos": skipped, "qpos": self.model.nq - skipped, "qvel": self.model.nv}

    # gymnasium's public health and cost members, rewards and reset info, computed again from the live data (see _health)
    _get_rew = _health.forward_rewards
    _get_reset_info = _health.plane_reset_info
    control_cost = _health.control_cost


SwimmerVectorEnv = vector_env_class(SwimmerEnv)
