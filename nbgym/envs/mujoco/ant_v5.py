"""Ant-v5: make a four-legged robot walk forward, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from nbgym.engine import njit
from nbgym.envs.mujoco import _sim
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import ACTION, CompiledMujocoEnv, Configure, InfoKey
from nbgym.envs.mujoco._sim import CFRC_EXT, QPOS, QVEL, XPOS, load
from nbgym.envs.mujoco import _health

DEFAULT_CAMERA_CONFIG = {"distance": 4.0}

# BODY_*: the main body's x, y (its xpos) and their distance from the origin, v4's positions.
(
    X_POSITION,
    Y_POSITION,
    DISTANCE,
    X_VELOCITY,
    Y_VELOCITY,
    REWARD_FORWARD,
    REWARD_CTRL,
    REWARD_CONTACT,
    REWARD_SURVIVE,
    BODY_X,
    BODY_Y,
    BODY_DISTANCE,
) = range(12)


def _observe(params, data, i, obs):
    skipped = 2 if params._exclude_current_positions_from_observation else 0
    at = _sim.copy_out(obs, i, 0, data[QPOS], skipped, params._nq - skipped)
    at = _sim.copy_out(obs, i, at, data[QVEL], 0, params._nv)
    if params._include_cfrc_ext_in_observation:
        low, high = params._contact_force_range[0], params._contact_force_range[1]
        first = params._first_observed_body
        _sim.copy_out_clipped(obs, i, at, data[CFRC_EXT], 6 * first, 6 * (params._nbody - first), low, high)


def _reset(params, data, i, rng, aux):
    _sim.reset_data(params, data, i)
    scale = params._reset_noise_scale
    _sim.set_uniform(data[QPOS], params._init_qpos, params._nq, rng, i, -scale, scale)
    _sim.set_normal(data[QVEL], params._init_qvel, params._nv, rng, i, scale)
    _sim.forward(params, data, i)
    _sim.positions_info(params, data, i, aux, X_POSITION)


@njit
def _is_healthy(params, data, i):
    # gymnasium: np.isfinite(state_vector()).all() and min_z <= qpos[2] <= max_z
    for k in range(params._nq):
        if not np.isfinite(load(data[QPOS], k)):
            return False
    for k in range(params._nv):
        if not np.isfinite(load(data[QVEL], k)):
            return False
    # gymnasium reads z as state_vector()[2]: qpos[2], or a velocity for a model of two positions.
    return params._healthy_z_range[0] <= _sim.state_vector_value(params, data, i, 2) <= params._healthy_z_range[1]


def _step(params, data, i, actions, rng, aux):
    at = 3 * params._main_body
    x_before = load(data[XPOS], at)
    y_before = load(data[XPOS], at + 1)
    _sim.simulate(params, data, i, actions)
    dt = _sim.dt(params, data)
    x_velocity = (load(data[XPOS], at) - x_before) / dt
    y_velocity = (load(data[XPOS], at + 1) - y_before) / dt
    forward_reward = x_velocity * params._forward_reward_weight
    healthy = _is_healthy(params, data, i)
    # v4 rewards every step while unhealthy steps terminate (the terminating one too), v5 healthy steps only.
    rewarded = healthy or (params._healthy_reward_when_terminating and params._terminate_when_unhealthy)
    healthy_reward = np.float64(rewarded) * params._healthy_reward
    ctrl_cost = _sim.weighted_action_cost(
        params, params._ctrl_cost_weight, params._ctrl_cost_weight_makes_float64, actions, i
    )
    low, high = params._contact_force_range[0], params._contact_force_range[1]
    contact_cost = 0.0
    if params._contact_cost_included:  # v4 only with use_contact_forces
        contact_cost = params._contact_cost_weight * _sim.sum_of_squares(data[CFRC_EXT], 6 * params._nbody, low, high)
    _sim.positions_info(params, data, i, aux, X_POSITION)
    aux[i, X_VELOCITY] = x_velocity
    aux[i, Y_VELOCITY] = y_velocity
    aux[i, REWARD_FORWARD] = forward_reward
    aux[i, REWARD_CTRL] = -ctrl_cost
    aux[i, REWARD_CONTACT] = -contact_cost
    aux[i, REWARD_SURVIVE] = healthy_reward
    body_x = load(data[XPOS], at)
    body_y = load(data[XPOS], at + 1)
    aux[i, BODY_X] = body_x
    aux[i, BODY_Y] = body_y
    aux[i, BODY_DISTANCE] = _sim.norm_2(body_x, body_y, params._norm_fuses)
    reward = (forward_reward + healthy_reward) - (ctrl_cost + contact_cost)
    return reward, (not healthy) and params._terminate_when_unhealthy


PHYSICS = _sim.physics(
    "Ant_v5",
    carry=XPOS,  # read before the step: xpos of the state before the last substep
    params=[
        *_sim.COMMON_PARAMS,
        ("_forward_reward_weight", np.float64),
        *_sim.action_weight("_ctrl_cost_weight"),
        ("_contact_cost_weight", np.float64),
        ("_healthy_reward", np.float64),
        ("_main_body", np.int64),
        ("_terminate_when_unhealthy", np.bool_),
        ("_healthy_z_range", np.float64, (2,)),
        ("_contact_force_range", np.float64, (2,)),
        ("_reset_noise_scale", np.float64),
        ("_exclude_current_positions_from_observation", np.bool_),
        ("_include_cfrc_ext_in_observation", np.bool_),
        ("_first_observed_body", np.int64),
        ("_contact_cost_included", np.bool_),
        ("_healthy_reward_when_terminating", np.bool_),
    ],
    source=__file__,
    reset=_reset,
    step=_step,
    observe=_observe,
    aux_width=12,
)


def configure(
    forward_reward_weight,
    ctrl_cost_weight,
    contact_cost_weight,
    healthy_reward,
    main_body,
    terminate_when_unhealthy,
    healthy_z_range,
    contact_force_range,
    reset_noise_scale,
    exclude_current_positions_from_observation,
    include_cfrc_ext_in_observation,
    version=5,
):
    """The observation size and parameters for a model; ``version`` 4: the contact forces of every body
    (the world's too) observed and their cost counted only with ``include_cfrc_ext_in_observation`` (v4's
    ``use_contact_forces``), the healthy reward on every step while terminating when unhealthy."""

    def configure_model(model):
        size = model.nq + model.nv - 2 * exclude_current_positions_from_observation
        first_body = 0 if version == 4 else 1
        size += 6 * (model.nbody - first_body) * include_cfrc_ext_in_observation
        _sim.require_observation_size(size)
        _sim.require(model.nq >= 2, IndexError, "Ant", "positions qpos[0] (x) and qpos[1] (y)", model)
        _sim.require(model.nq + model.nv >= 3, IndexError, "Ant", "a third state value state_vector()[2] (z)", model)
        return size, {
            "_forward_reward_weight": forward_reward_weight,
            "_ctrl_cost_weight": ctrl_cost_weight,
            "_contact_cost_weight": contact_cost_weight,
            "_healthy_reward": healthy_reward,
            "_main_body": model.body(main_body).id,
            "_terminate_when_unhealthy": terminate_when_unhealthy,
            "_healthy_z_range": healthy_z_range,
            "_contact_force_range": contact_force_range,
            "_reset_noise_scale": reset_noise_scale,
            "_exclude_current_positions_from_observation": exclude_current_positions_from_observation,
            "_include_cfrc_ext_in_observation": include_cfrc_ext_in_observation,
            "_first_observed_body": first_body,
            "_contact_cost_included": include_cfrc_ext_in_observation or version != 4,
            "_healthy_reward_when_terminating": version == 4,
        }

    return configure_model


class _Ant:
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = (
        InfoKey("x_position", X_POSITION),
        InfoKey("y_position", Y_POSITION),
        InfoKey("distance_from_origin", DISTANCE),
        InfoKey("x_velocity", X_VELOCITY),
        InfoKey("y_velocity", Y_VELOCITY),
        InfoKey("reward_forward", REWARD_FORWARD),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_ctrl_cost_weight"),
        InfoKey("reward_contact", REWARD_CONTACT),
        InfoKey("reward_survive", REWARD_SURVIVE),
    )
    _reset_info_keys = _step_info_keys[:3]
    _aux_columns = 12

    def _configure(self, args: SimpleNamespace) -> Configure:
        return configure(
            args.forward_reward_weight,
            args.ctrl_cost_weight,
            args.contact_cost_weight,
            args.healthy_reward,
            args.main_body,
            args.terminate_when_unhealthy,
            args.healthy_z_range,
            args.contact_force_range,
            args.reset_noise_scale,
            args.exclude_current_positions_from_observation,
            args.include_cfrc_ext_in_observation,
        )


class AntEnv(_Ant, CompiledMujocoEnv):
    """
    ## Description

    A 3D robot of a free-moving torso and four legs of two links each; the eight hinges are driven to
    move forward (+x).

    ## Action Space

    `Box(-1, 1, (8,), float32)`: the torques of the hip and ankle of each leg.

    ## Observation Space

    `Box(-inf, inf, (105,), float64)`: `qpos[2:]` (13), `qvel` (14) and the clipped external contact
    forces `clip(cfrc_ext[1:], *contact_force_range)` (78, with `include_cfrc_ext_in_observation`).
    With `exclude_current_positions_from_observation=False` the torso's x and y come first.

    ## Rewards

    `healthy_reward + forward_reward - ctrl_cost - contact_cost`: `forward_reward_weight * dx/dt` of the
    `main_body`, `healthy_reward` on healthy steps, `ctrl_cost_weight * sum(action**2)` (in the action's
    dtype), `contact_cost_weight * sum(clip(cfrc_ext)**2)`.

    ## Starting State

    `init_qpos + uniform(-reset_noise_scale, reset_noise_scale)`, `init_qvel + reset_noise_scale * standard_normal`.

    ## Episode End

    Terminates when unhealthy (with `terminate_when_unhealthy`): a non-finite state or the torso's z
    outside `healthy_z_range` (inclusive). Truncated after 1000 steps.

    ## Arguments

    `xml_file="ant.xml"`, `frame_skip=5`, `default_camera_config`, `forward_reward_weight=1`,
    `ctrl_cost_weight=0.5`, `contact_cost_weight=5e-4`, `healthy_reward=1.0`, `main_body=1`,
    `terminate_when_unhealthy=True`, `healthy_z_range=(0.2, 1.0)`, `contact_force_range=(-1.0, 1.0)`,
    `reset_noise_scale=0.1`, `exclude_current_positions_from_observation=True`,
    `include_cfrc_ext_in_observation=True`, and `MujocoEnv`'s. `info`: `x_position`, `y_position`,
    `distance_from_origin`, `x_velocity`, `y_velocity`, `reward_forward`, `reward_ctrl`,
    `reward_contact`, `reward_survive` (reset: the first three).

    ## Version History

    * v5: minimum mujoco 2.3.3; contact forces in the observation again; `main_body`, more arguments;
      healthy reward on healthy steps only (gymnasium 1.0). v4: mujoco bindings. v3, v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "ant.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | int] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1,
        ctrl_cost_weight: float = 0.5,
        contact_cost_weight: float = 5e-4,
        healthy_reward: float = 1.0,
        main_body: int | str = 1,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (0.2, 1.0),
        contact_force_range: tuple[float, float] = (-1.0, 1.0),
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        include_cfrc_ext_in_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        skipped = 2 * exclude_current_positions_from_observation
        self.observation_structure = {
            "skipped_qpos": skipped,
            "qpos": self.model.nq - skipped,
            "qvel": self.model.nv,
            "cfrc_ext": 6 * (self.model.nbody - 1) * include_cfrc_ext_in_observation,
        }

    # gymnasium's public health and cost members, rewards and reset info, computed again from the live data (see _health)
    _get_rew = _health.ant_rewards
    _get_reset_info = _health.plane_reset_info
    healthy_reward = property(_health.healthy_reward)
    control_cost = _health.control_cost
    contact_forces = property(_health.ant_contact_forces)
    contact_cost = property(_health.ant_contact_cost)
    is_healthy = property(_health.ant_is_healthy)


AntVectorEnv = vector_env_class(AntEnv)
