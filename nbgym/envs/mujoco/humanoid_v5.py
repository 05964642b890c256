"""Humanoid-v5: make a 3D humanoid walk forward without falling, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from nbgym.envs.mujoco import _humanoid
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import CompiledMujocoEnv, Configure
from nbgym.envs.mujoco import _health

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 1, "distance": 4.0, "lookat": np.array((0.0, 0.0, 2.0)), "elevation": -20.0}


class _Humanoid:
    metadata = _humanoid.METADATA
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = _humanoid.HUMANOID
    _step_info_keys = _humanoid.HUMANOID_STEP_INFO
    _reset_info_keys = _humanoid.HUMANOID_RESET_INFO
    _aux_columns = _humanoid.H_AUX_COLUMNS
    _has_tendon_infos = True

    def _configure(self, args: SimpleNamespace) -> Configure:
        return configure(
            args.forward_reward_weight,
            args.ctrl_cost_weight,
            args.contact_cost_weight,
            args.contact_cost_range,
            args.healthy_reward,
            args.terminate_when_unhealthy,
            args.healthy_z_range,
            args.reset_noise_scale,
            _humanoid.observation_flags(vars(args)),
        )


def configure(
    forward_reward_weight,
    ctrl_cost_weight,
    contact_cost_weight,
    contact_cost_range,
    healthy_reward,
    terminate_when_unhealthy,
    healthy_z_range,
    reset_noise_scale,
    flags,
    version=5,
):
    """The Humanoid's ``configure`` (``version`` 4: v4's observation and healthy reward)."""
    return _humanoid.configure(
        ctrl_cost_weight,
        contact_cost_weight,
        contact_cost_range,
        reset_noise_scale,
        flags,
        version=version,
        forward_reward_weight=forward_reward_weight,
        healthy_reward=healthy_reward,
        terminate_when_unhealthy=terminate_when_unhealthy,
        healthy_z_range=healthy_z_range,
        healthy_reward_when_terminating=version == 4,
    )


class HumanoidEnv(_Humanoid, CompiledMujocoEnv):
    """
    ## Description

    A 3D bipedal robot (torso, abdomen, two legs and two arms of two links each) whose seventeen
    joints are driven to walk forward as fast as possible without falling over.

    ## Action Space

    `Box(-0.4, 0.4, (17,), float32)`: the torques of the hinge joints.

    ## Observation Space

    `Box(-inf, inf, (348,), float64)`: `qpos[2:]` (22), `qvel` (23), the bodies' `cinert[1:]` (130),
    `cvel[1:]` (78), `qfrc_actuator[6:]` (17) and `cfrc_ext[1:]` (78), each of the last four dropped by its
    `include_*_in_observation=False`; the torso's x, y first with
    `exclude_current_positions_from_observation=False`.

    ## Rewards

    `healthy_reward + forward_reward - ctrl_cost - contact_cost`: `forward_reward_weight` times the
    velocity of the mass-weighted centre of the bodies, `ctrl_cost_weight * sum(ctrl**2)`, and
    `contact_cost_weight * sum(cfrc_ext**2)` clipped to `contact_cost_range`.

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Terminates when the torso's z leaves `healthy_z_range` (with `terminate_when_unhealthy`); truncated
    after 1000 steps.

    ## Arguments

    `xml_file="humanoid.xml"`, `frame_skip=5`, `default_camera_config`, `forward_reward_weight=1.25`,
    `ctrl_cost_weight=0.1`, `contact_cost_weight=5e-7`, `contact_cost_range=(-inf, 10.0)`,
    `healthy_reward=5.0`, `terminate_when_unhealthy=True`, `healthy_z_range=(1.0, 2.0)`,
    `reset_noise_scale=1e-2`, `exclude_current_positions_from_observation=True`, the four
    `include_*_in_observation=True`, and `MujocoEnv`'s. `info`: `x_position`, `y_position`,
    `tendon_length`, `tendon_velocity`, `distance_from_origin`, `x_velocity`, `y_velocity`,
    `reward_survive`, `reward_forward`, `reward_ctrl`, `reward_contact` (reset: the first five).

    ## Version History

    * v5: minimum mujoco 2.3.3; contact forces in the observation again; `cinert`/`cvel`/`qfrc_actuator`
      of the world body left out; more arguments and infos (gymnasium 1.0). v4, v3, v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "humanoid.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.25,
        ctrl_cost_weight: float = 0.1,
        contact_cost_weight: float = 5e-7,
        contact_cost_range: tuple[float, float] = (-np.inf, 10.0),
        healthy_reward: float = 5.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (1.0, 2.0),
        reset_noise_scale: float = 1e-2,
        exclude_current_positions_from_observation: bool = True,
        include_cinert_in_observation: bool = True,
        include_cvel_in_observation: bool = True,
        include_qfrc_actuator_in_observation: bool = True,
        include_cfrc_ext_in_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        # the observation flags are among the arguments
        self.observation_structure = _humanoid.observation_structure(self.model, locals())

    # gymnasium's public health and cost members, rewards and reset info, computed again from the live data (see _health)
    _get_rew = _health.humanoid_rewards
    _get_reset_info = _health.humanoid_reset_info
    healthy_reward = property(_health.healthy_reward)
    control_cost = _health.control_cost_of_ctrl
    contact_cost = property(_health.humanoid_contact_cost)
    is_healthy = property(_health.humanoid_is_healthy)


HumanoidVectorEnv = vector_env_class(HumanoidEnv)
