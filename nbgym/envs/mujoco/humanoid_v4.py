"""Humanoid-v4: make a 3D bipedal robot walk forward, as gymnasium's, on the compiled engine (Humanoid-v5's
physics with v4's observation, reward and infos)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from nbgym.envs.mujoco import _humanoid
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import FLOAT, CompiledMujocoEnv, Configure, InfoKey
from nbgym.envs.mujoco.humanoid_v5 import DEFAULT_CAMERA_CONFIG, configure
from nbgym.envs.mujoco import _health

XML_FILE, FRAME_SKIP = "humanoid.xml", 5
# v4 has no contact cost: a zero weight makes v5's zero.
NO_CONTACT_COST, CONTACT_COST_RANGE = 0.0, (-np.inf, 10.0)
FULL_OBSERVATION = {
    "include_cinert_in_observation": True,
    "include_cvel_in_observation": True,
    "include_qfrc_actuator_in_observation": True,
    "include_cfrc_ext_in_observation": True,
}


class _Humanoid:
    metadata = _humanoid.METADATA
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = _humanoid.HUMANOID
    _step_info_keys = (
        InfoKey("reward_linvel", _humanoid.H_REWARD_FORWARD),
        InfoKey("reward_quadctrl", _humanoid.H_REWARD_CTRL),
        InfoKey("reward_alive", _humanoid.H_REWARD_SURVIVE, FLOAT),
        InfoKey("x_position", _humanoid.H_MASS_X),
        InfoKey("y_position", _humanoid.H_MASS_Y),
        InfoKey("distance_from_origin", _humanoid.H_MASS_DISTANCE),
        InfoKey("x_velocity", _humanoid.H_X_VELOCITY),
        InfoKey("y_velocity", _humanoid.H_Y_VELOCITY),
        InfoKey("forward_reward", _humanoid.H_REWARD_FORWARD),
    )
    _reset_info_keys = ()
    _aux_columns = _humanoid.H_AUX_COLUMNS
    _has_tendon_infos = True  # the kernels write the tendons' columns, which v4's infos leave out
    _constant_arguments = {"xml_file": XML_FILE, "frame_skip": FRAME_SKIP}

    def _configure(self, args: SimpleNamespace) -> Configure:
        return _configure(
            args.forward_reward_weight,
            args.ctrl_cost_weight,
            args.healthy_reward,
            args.terminate_when_unhealthy,
            args.healthy_z_range,
            args.reset_noise_scale,
            args.exclude_current_positions_from_observation,
        )


def _configure(
    forward_reward_weight,
    ctrl_cost_weight,
    healthy_reward,
    terminate_when_unhealthy,
    healthy_z_range,
    reset_noise_scale,
    exclude_current_positions_from_observation,
):
    flags = {
        "exclude_current_positions_from_observation": exclude_current_positions_from_observation,
        **FULL_OBSERVATION,
    }
    return configure(
        forward_reward_weight,
        ctrl_cost_weight,
        NO_CONTACT_COST,
        CONTACT_COST_RANGE,
        healthy_reward,
        terminate_when_unhealthy,
        healthy_z_range,
        reset_noise_scale,
        flags,
        version=4,
    )


class HumanoidEnv(_Humanoid, CompiledMujocoEnv):
    """
    ## Description

    Humanoid-v5's robot (see `nbgym.envs.mujoco.humanoid_v5`) as gymnasium's v4 has it.

    ## Action Space

    `Box(-0.4, 0.4, (17,), float32)`: the torques of the seventeen joints.

    ## Observation Space

    `Box(-inf, inf, (376,), float64)`: `qpos[2:]` (22), `qvel` (23), and of every body (the world's
    too) `cinert` (140), `cvel` (84), then `qfrc_actuator` (23) and `cfrc_ext` (84); with
    `exclude_current_positions_from_observation=False`, `qpos[:2]` too (378).

    ## Rewards

    `healthy_reward + forward_reward - ctrl_cost`: `healthy_reward` on every step while
    `terminate_when_unhealthy` (the terminating step too), otherwise on healthy steps;
    `forward_reward_weight` times the velocity of the centre of mass along x;
    `ctrl_cost_weight * sum(ctrl**2)`.

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Terminates when unhealthy (with `terminate_when_unhealthy`): `qpos[2]` outside `healthy_z_range`.
    Truncated after 1000 steps.

    ## Arguments

    `forward_reward_weight=1.25`, `ctrl_cost_weight=0.1`, `healthy_reward=5.0`,
    `terminate_when_unhealthy=True`, `healthy_z_range=(1.0, 2.0)`, `reset_noise_scale=1e-2`,
    `exclude_current_positions_from_observation=True`, and `MujocoEnv`'s rendering arguments (the model
    is `humanoid.xml`, `frame_skip` 5). `info`: `reward_linvel`, `reward_quadctrl`, `reward_alive`,
    `x_position`, `y_position`, `distance_from_origin`, `x_velocity`, `y_velocity`, `forward_reward`
    (reset: none).

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): the world body and the free joint left out of the
      observation; a contact cost; arguments and infos. v3: arguments. v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        forward_reward_weight: float = 1.25,
        ctrl_cost_weight: float = 0.1,
        healthy_reward: float = 5.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (1.0, 2.0),
        reset_noise_scale: float = 1e-2,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        pass

    # gymnasium's public health and cost members, computed again from the live data (see _health)
    healthy_reward = property(_health.healthy_reward_v4)
    control_cost = _health.control_cost_of_ctrl
    is_healthy = property(_health.humanoid_is_healthy)
    terminated = property(_health.terminated_v4)


HumanoidVectorEnv = vector_env_class(HumanoidEnv)
