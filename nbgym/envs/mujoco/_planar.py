"""The compiled physics of the planar walkers, Hopper and Walker2d v5 and v4 (gymnasium's step and reset).

Both move along x, stay healthy while the torso height ``qpos[1]`` and angle ``qpos[2]`` lie in
their ranges (the Hopper also needs every other state value within ``healthy_state_range``), and
observe ``qpos`` (without x) and ``clip(qvel, -10, 10)``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from nbgym.engine import Physics, njit
from nbgym.envs.mujoco import _sim
from nbgym.envs.mujoco._compiled import ACTION, F64, FLOAT, Configure, InfoKey
from nbgym.envs.mujoco._sim import QPOS, QVEL, load

X_POSITION, Z_DISTANCE, X_VELOCITY, REWARD_FORWARD, REWARD_CTRL, REWARD_SURVIVE = range(6)


def _observe(params, data, i, obs):
    skipped = 1 if params._exclude_current_positions_from_observation else 0
    at = _sim.copy_out(obs, i, 0, data[QPOS], skipped, params._nq - skipped)
    _sim.copy_out_clipped(obs, i, at, data[QVEL], 0, params._nv, -10.0, 10.0)


@njit
def _positions_info(params, data, i, aux):
    qpos = data[QPOS]
    aux[i, X_POSITION] = load(qpos, 0)
    aux[i, Z_DISTANCE] = load(qpos, 1) - load(params._init_qpos, 1)


def _reset(params, data, i, rng, aux):
    _sim.reset_data(params, data, i)
    scale = params._reset_noise_scale
    _sim.set_uniform(data[QPOS], params._init_qpos, params._nq, rng, i, -scale, scale)
    _sim.set_uniform(data[QVEL], params._init_qvel, params._nv, rng, i, -scale, scale)
    _sim.forward(params, data, i)
    _positions_info(params, data, i, aux)


@njit
def _within(value, bounds):
    return bounds[0] < value < bounds[1]


@njit
def _is_healthy(params, data, i):
    qpos = data[QPOS]
    if params._check_state:
        # gymnasium's state_vector()[2:]: qpos[2:] then qvel.
        for k in range(2, params._nq):
            if not _within(load(qpos, k), params._healthy_state_range):
                return False
        for k in range(params._nv):
            if not _within(load(data[QVEL], k), params._healthy_state_range):
                return False
    return _within(load(qpos, 1), params._healthy_z_range) and _within(load(qpos, 2), params._healthy_angle_range)


def _step(params, data, i, actions, rng, aux):
    before = load(data[QPOS], 0)
    _sim.simulate(params, data, i, actions)
    x_velocity = (load(data[QPOS], 0) - before) / _sim.dt(params, data)
    forward_reward = params._forward_reward_weight * x_velocity
    healthy = _is_healthy(params, data, i)
    # v4 rewards every step while unhealthy steps terminate (the terminating one too), v5 healthy steps only.
    rewarded = healthy or (params._healthy_reward_when_terminating and params._terminate_when_unhealthy)
    healthy_reward = np.float64(rewarded) * params._healthy_reward
    ctrl_cost = _sim.weighted_action_cost(
        params, params._ctrl_cost_weight, params._ctrl_cost_weight_makes_float64, actions, i
    )
    _positions_info(params, data, i, aux)
    aux[i, X_VELOCITY] = x_velocity
    aux[i, REWARD_FORWARD] = forward_reward
    aux[i, REWARD_CTRL] = -ctrl_cost
    aux[i, REWARD_SURVIVE] = healthy_reward
    return (forward_reward + healthy_reward) - ctrl_cost, (not healthy) and params._terminate_when_unhealthy


_PARAMS = [
    *_sim.COMMON_PARAMS,
    ("_forward_reward_weight", np.float64),
    *_sim.action_weight("_ctrl_cost_weight"),
    ("_healthy_reward", np.float64),
    ("_terminate_when_unhealthy", np.bool_),
    ("_healthy_reward_when_terminating", np.bool_),
    ("_check_state", np.bool_),
    ("_healthy_state_range", np.float64, (2,)),
    ("_healthy_z_range", np.float64, (2,)),
    ("_healthy_angle_range", np.float64, (2,)),
    ("_reset_noise_scale", np.float64),
    ("_exclude_current_positions_from_observation", np.bool_),
]


def _physics(name: str) -> Physics:
    return _sim.physics(name, params=_PARAMS, source=__file__, reset=_reset, step=_step, observe=_observe, aux_width=6)


HOPPER = _physics("Hopper_v5")
WALKER = _physics("Walker2d_v5")


def step_info_keys(survive_kind: str) -> tuple[InfoKey, ...]:
    """The step infos; ``reward_survive`` is a Python float for the Hopper (``all()`` gives a bool) and
    ``np.float64`` for the Walker (a ``np.bool_`` times the weight)."""
    return (
        InfoKey("x_position", X_POSITION),
        InfoKey("z_distance_from_origin", Z_DISTANCE),
        InfoKey("x_velocity", X_VELOCITY),
        InfoKey("reward_forward", REWARD_FORWARD),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_ctrl_cost_weight"),
        InfoKey("reward_survive", REWARD_SURVIVE, survive_kind),
    )


V4_STEP_INFO_KEYS = (InfoKey("x_position", X_POSITION), InfoKey("x_velocity", X_VELOCITY))
"""The step infos of the v4 walkers (their resets have none)."""
RESET_INFO_KEYS = (InfoKey("x_position", X_POSITION), InfoKey("z_distance_from_origin", Z_DISTANCE))
AUX_COLUMNS = 6
METADATA = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
SURVIVE_KINDS = {"Hopper": FLOAT, "Walker2d": F64}


class PlanarWalker:
    """What the Hopper and Walker2d env classes, v5 and v4, share: their metadata, aux columns and ``_configure``.

    A subclass names its ``physics``, camera and infos. The Walker has no ``healthy_state_range`` argument: no
    state range is checked. ``_healthy_reward_when_terminating`` is v4's healthy reward, given on every step
    when ``terminate_when_unhealthy``.
    """

    metadata = METADATA
    _aux_columns = AUX_COLUMNS
    _healthy_reward_when_terminating = False

    def _configure(self, args: SimpleNamespace) -> Configure:
        healthy_state_range = vars(args).get("healthy_state_range")
        exclude_current_positions_from_observation = args.exclude_current_positions_from_observation
        healthy_reward_when_terminating = self._healthy_reward_when_terminating

        def configure_model(model):
            size = model.nq + model.nv - exclude_current_positions_from_observation
            _sim.require_observation_size(size)
            _sim.require(model.nq >= 2, IndexError, "Hopper/Walker2d", "positions qpos[0] (x) and qpos[1] (z)", model)
            _sim.require(model.nq >= 3, ValueError, "Hopper/Walker2d", "positions qpos[1:3] (z, angle)", model)
            return size, {
                "_forward_reward_weight": args.forward_reward_weight,
                "_ctrl_cost_weight": args.ctrl_cost_weight,
                "_healthy_reward": args.healthy_reward,
                "_terminate_when_unhealthy": args.terminate_when_unhealthy,
                "_healthy_reward_when_terminating": healthy_reward_when_terminating,
                "_check_state": healthy_state_range is not None,
                "_healthy_state_range": (-np.inf, np.inf) if healthy_state_range is None else healthy_state_range,
                "_healthy_z_range": args.healthy_z_range,
                "_healthy_angle_range": args.healthy_angle_range,
                "_reset_noise_scale": args.reset_noise_scale,
                "_exclude_current_positions_from_observation": exclude_current_positions_from_observation,
            }

        return configure_model


def observation_structure(model, exclude_current_positions_from_observation: bool) -> dict[str, int]:
    """gymnasium's ``observation_structure`` of the walkers."""
    skipped = 1 * exclude_current_positions_from_observation
    return {"skipped_qpos": skipped, "qpos": model.nq - skipped, "qvel": model.nv}
