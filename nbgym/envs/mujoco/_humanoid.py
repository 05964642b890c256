"""The compiled physics of Humanoid-v5 and HumanoidStandup-v5 (gymnasium's step and reset).

Both observe ``qpos`` (without x, y), ``qvel``, and optionally the bodies' ``cinert``, ``cvel``, the
actuator forces ``qfrc_actuator[6:]`` and the external contact forces ``cfrc_ext`` (body 0, the world,
left out), and report the tendons' lengths and velocities in their infos.
"""

from __future__ import annotations


import numpy as np

from nbgym.engine import njit
from nbgym.envs.mujoco import _sim
from nbgym.envs.mujoco._compiled import InfoKey
from nbgym.envs.mujoco._sim import (
    BODY_MASS,
    CFRC_EXT,
    CINERT,
    CTRL,
    CVEL,
    QFRC_ACTUATOR,
    QPOS,
    QVEL,
    TIMESTEP,
    XIPOS,
    load,
)

_NO_CLIP = np.inf


def _observe(params, data, i, obs):
    skipped = 2 if params._exclude_current_positions_from_observation else 0
    first = params._first_observed_body
    bodies = params._nbody - first
    at = _sim.copy_out(obs, i, 0, data[QPOS], skipped, params._nq - skipped)
    at = _sim.copy_out(obs, i, at, data[QVEL], 0, params._nv)
    if params._include_cinert_in_observation:
        at = _sim.copy_out(obs, i, at, data[CINERT], 10 * first, 10 * bodies)
    if params._include_cvel_in_observation:
        at = _sim.copy_out(obs, i, at, data[CVEL], 6 * first, 6 * bodies)
    if params._include_qfrc_actuator_in_observation:
        dof = params._first_observed_dof
        at = _sim.copy_out(obs, i, at, data[QFRC_ACTUATOR], dof, params._nv - dof)
    if params._include_cfrc_ext_in_observation:
        _sim.copy_out(obs, i, at, data[CFRC_EXT], 6 * first, 6 * bodies)


@njit
def _reset_state(params, data, i, rng):
    _sim.reset_data(params, data, i)
    scale = params._reset_noise_scale
    _sim.set_uniform(data[QPOS], params._init_qpos, params._nq, rng, i, -scale, scale)
    _sim.set_uniform(data[QVEL], params._init_qvel, params._nv, rng, i, -scale, scale)
    _sim.forward(params, data, i)


@njit
def _costs(params, data, i):
    """``ctrl_cost_weight * sum(ctrl**2)``, the contact (impact) cost clipped to its range, and whether the
    cost was above the range (v4's HumanoidStandup then has gymnasium's ``min(cost, 10)``: the int 10)."""
    ctrl_cost = params._ctrl_cost_weight * _sim.sum_of_squares(data[CTRL], params._nu, -_NO_CLIP, _NO_CLIP)
    contact = params._contact_cost_weight * _sim.sum_of_squares(data[CFRC_EXT], 6 * params._nbody, -_NO_CLIP, _NO_CLIP)
    high = params._contact_cost_range[1]
    return ctrl_cost, _sim.clip(contact, params._contact_cost_range[0], high), contact > high


# Humanoid-v5
# H_MASS_*: the centre of mass's x, y and distance from the origin, v4's positions.
(
    H_X_POSITION,
    H_Y_POSITION,
    H_DISTANCE,
    H_X_VELOCITY,
    H_Y_VELOCITY,
    H_REWARD_SURVIVE,
    H_REWARD_FORWARD,
    H_REWARD_CTRL,
    H_REWARD_CONTACT,
    H_MASS_X,
    H_MASS_Y,
    H_MASS_DISTANCE,
) = range(12)
H_AUX_COLUMNS = 12


@njit
def _mass_center(params, data, i):
    """gymnasium's ``mass_center``: ``einsum('b,bj->j', body_mass, xipos) / body_mass.sum()`` (x, y)."""
    x = 0.0
    y = 0.0
    for body in range(params._nbody):
        mass = load(data[BODY_MASS], body)
        x += mass * load(data[XIPOS], 3 * body)
        y += mass * load(data[XIPOS], 3 * body + 1)
    total = _sim.total_mass(data, params._nbody)
    return x / total, y / total


def _humanoid_reset(params, data, i, rng, aux):
    _reset_state(params, data, i, rng)
    _sim.positions_info(params, data, i, aux, H_X_POSITION)
    _sim.tendons_info(params, data, i, aux, H_AUX_COLUMNS)


def _humanoid_step(params, data, i, actions, rng, aux):
    x_before, y_before = _mass_center(params, data, i)
    _sim.simulate(params, data, i, actions)
    x_after, y_after = _mass_center(params, data, i)
    dt = _sim.dt(params, data)
    x_velocity = (x_after - x_before) / dt
    y_velocity = (y_after - y_before) / dt
    forward_reward = params._forward_reward_weight * x_velocity
    healthy = params._healthy_z_range[0] < load(data[QPOS], 2) < params._healthy_z_range[1]
    # v4 rewards every step while unhealthy steps terminate (the terminating one too), v5 healthy steps only.
    rewarded = healthy or (params._healthy_reward_when_terminating and params._terminate_when_unhealthy)
    healthy_reward = np.float64(rewarded) * params._healthy_reward
    ctrl_cost, contact_cost, _ = _costs(params, data, i)
    _sim.positions_info(params, data, i, aux, H_X_POSITION)
    _sim.tendons_info(params, data, i, aux, H_AUX_COLUMNS)
    aux[i, H_X_VELOCITY] = x_velocity
    aux[i, H_Y_VELOCITY] = y_velocity
    aux[i, H_REWARD_SURVIVE] = healthy_reward
    aux[i, H_REWARD_FORWARD] = forward_reward
    aux[i, H_REWARD_CTRL] = -ctrl_cost
    aux[i, H_REWARD_CONTACT] = -contact_cost
    aux[i, H_MASS_X] = x_after
    aux[i, H_MASS_Y] = y_after
    aux[i, H_MASS_DISTANCE] = _sim.norm_2(x_after, y_after, params._norm_fuses)
    reward = (forward_reward + healthy_reward) - (ctrl_cost + contact_cost)
    return reward, (not healthy) and params._terminate_when_unhealthy


# HumanoidStandup-v5
# S_IMPACT_CLIPPED (1.0 where the impact cost was above its range) follows S_REWARD_IMPACT, as CLIPPED_INT reads it.
S_X_POSITION, S_Y_POSITION, S_Z_DISTANCE, S_REWARD_LINUP, S_REWARD_QUADCTRL, S_REWARD_IMPACT, S_IMPACT_CLIPPED = range(
    7
)
S_AUX_COLUMNS = 7


@njit
def _standup_positions_info(params, data, i, aux):
    qpos = data[QPOS]
    aux[i, S_X_POSITION] = load(qpos, 0)
    aux[i, S_Y_POSITION] = load(qpos, 1)
    aux[i, S_Z_DISTANCE] = load(qpos, 2) - load(params._init_qpos, 2)
    _sim.tendons_info(params, data, i, aux, S_AUX_COLUMNS)


def _standup_reset(params, data, i, rng, aux):
    _reset_state(params, data, i, rng)
    _standup_positions_info(params, data, i, aux)


def _standup_step(params, data, i, actions, rng, aux):
    _sim.simulate(params, data, i, actions)
    uph_cost = (load(data[QPOS], 2) - 0) / load(data[TIMESTEP], 0)
    quad_ctrl_cost, quad_impact_cost, impact_clipped = _costs(params, data, i)
    _standup_positions_info(params, data, i, aux)
    aux[i, S_REWARD_LINUP] = uph_cost
    aux[i, S_REWARD_QUADCTRL] = -quad_ctrl_cost
    aux[i, S_REWARD_IMPACT] = -quad_impact_cost
    aux[i, S_IMPACT_CLIPPED] = impact_clipped
    return uph_cost - quad_ctrl_cost - quad_impact_cost + 1, False


_OBSERVATION_FLAGS = (
    "exclude_current_positions_from_observation",
    "include_cinert_in_observation",
    "include_cvel_in_observation",
    "include_qfrc_actuator_in_observation",
    "include_cfrc_ext_in_observation",
)
_COMMON = [
    *_sim.COMMON_PARAMS,
    ("_ctrl_cost_weight", np.float64),
    ("_contact_cost_weight", np.float64),
    ("_contact_cost_range", np.float64, (2,)),
    ("_reset_noise_scale", np.float64),
    *((f"_{flag}", np.bool_) for flag in _OBSERVATION_FLAGS),
    ("_first_observed_body", np.int64),
    ("_first_observed_dof", np.int64),
]

HUMANOID = _sim.physics(
    "Humanoid_v5",
    carry=XIPOS,  # read before the step: xipos of the state before the last substep
    params=[
        *_COMMON,
        ("_forward_reward_weight", np.float64),
        ("_healthy_reward", np.float64),
        ("_terminate_when_unhealthy", np.bool_),
        ("_healthy_reward_when_terminating", np.bool_),
        ("_healthy_z_range", np.float64, (2,)),
    ],
    source=__file__,
    reset=_humanoid_reset,
    step=_humanoid_step,
    observe=_observe,
    aux_width=H_AUX_COLUMNS,
)

STANDUP = _sim.physics(
    "HumanoidStandup_v5",
    params=_COMMON,
    source=__file__,
    reset=_standup_reset,
    step=_standup_step,
    observe=_observe,
    aux_width=S_AUX_COLUMNS,
)

HUMANOID_STEP_INFO = (
    InfoKey("x_position", H_X_POSITION),
    InfoKey("y_position", H_Y_POSITION),
    InfoKey("tendon_length", H_AUX_COLUMNS),  # columns filled in for the model (CompiledMujoco._info_keys)
    InfoKey("tendon_velocity", H_AUX_COLUMNS),
    InfoKey("distance_from_origin", H_DISTANCE),
    InfoKey("x_velocity", H_X_VELOCITY),
    InfoKey("y_velocity", H_Y_VELOCITY),
    InfoKey("reward_survive", H_REWARD_SURVIVE),
    InfoKey("reward_forward", H_REWARD_FORWARD),
    InfoKey("reward_ctrl", H_REWARD_CTRL),
    InfoKey("reward_contact", H_REWARD_CONTACT),
)
HUMANOID_RESET_INFO = HUMANOID_STEP_INFO[:5]

STANDUP_STEP_INFO = (
    InfoKey("x_position", S_X_POSITION),
    InfoKey("y_position", S_Y_POSITION),
    InfoKey("z_distance_from_origin", S_Z_DISTANCE),
    InfoKey("tendon_length", S_AUX_COLUMNS),
    InfoKey("tendon_velocity", S_AUX_COLUMNS),
    InfoKey("reward_linup", S_REWARD_LINUP),
    InfoKey("reward_quadctrl", S_REWARD_QUADCTRL),
    InfoKey("reward_impact", S_REWARD_IMPACT),
)
STANDUP_RESET_INFO = STANDUP_STEP_INFO[:5]
METADATA = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}


def configure(
    ctrl_cost_weight, contact_cost_weight, contact_cost_range, reset_noise_scale, observation_flags, version=5, **own
):
    """The ``configure`` of both: the shared parameters, the observation flags (a dict of
    ``_OBSERVATION_FLAGS``) and the env's ``own`` parameters (names without the leading underscore);
    ``version`` 4 observes every body (v5 leaves the world body out) and every ``qfrc_actuator`` (v5
    leaves the free joint's 6 out)."""

    def configure_model(model):
        flags = observation_flags
        first_body, first_dof = (0, 0) if version == 4 else (1, min(6, model.nv))  # qfrc_actuator[6:]
        bodies = model.nbody - first_body
        size = model.nq + model.nv - 2 * flags["exclude_current_positions_from_observation"]
        size += 10 * bodies * flags["include_cinert_in_observation"]
        size += 6 * bodies * flags["include_cvel_in_observation"]
        size += (model.nv - first_dof) * flags["include_qfrc_actuator_in_observation"]
        size += 6 * bodies * flags["include_cfrc_ext_in_observation"]
        _sim.require_observation_size(size)
        _sim.require(model.nq >= 3, IndexError, "Humanoid/HumanoidStandup", "positions qpos[0:3] (x, y, z)", model)
        values = {
            "_ctrl_cost_weight": ctrl_cost_weight,
            "_contact_cost_weight": contact_cost_weight,
            "_contact_cost_range": contact_cost_range,
            "_reset_noise_scale": reset_noise_scale,
            **{f"_{flag}": flags[flag] for flag in _OBSERVATION_FLAGS},
            "_first_observed_body": first_body,
            "_first_observed_dof": first_dof,
            **{f"_{name}": value for name, value in own.items()},
        }
        return size, values

    return configure_model


def observation_flags(arguments: dict[str, object]) -> dict[str, bool]:
    """The observation flags among an env's arguments."""
    return {flag: arguments[flag] for flag in _OBSERVATION_FLAGS}


def observation_structure(model, flags: dict[str, bool]) -> dict[str, int]:
    """gymnasium's ``observation_structure`` of both."""
    skipped = 2 * flags["exclude_current_positions_from_observation"]
    bodies = model.nbody - 1
    return {
        "skipped_qpos": skipped,
        "qpos": model.nq - skipped,
        "qvel": model.nv,
        "cinert": 10 * bodies * flags["include_cinert_in_observation"],
        "cvel": 6 * bodies * flags["include_cvel_in_observation"],
        "qfrc_actuator": (model.nv - 6) * flags["include_qfrc_actuator_in_observation"],
        "cfrc_ext": 6 * bodies * flags["include_cfrc_ext_in_observation"],
        "ten_length": 0,
        "ten_velocity": 0,
    }
