"""Hopper-v5: make a one-legged robot hop forward, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.envs.mujoco import _planar
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import CompiledMujocoEnv
from nbgym.envs.mujoco import _health

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 2, "distance": 3.0, "lookat": np.array((0.0, 0.0, 1.15)), "elevation": -20.0}


class _Hopper(_planar.PlanarWalker):
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = _planar.HOPPER
    _step_info_keys = _planar.step_info_keys(_planar.SURVIVE_KINDS["Hopper"])
    _reset_info_keys = _planar.RESET_INFO_KEYS


class HopperEnv(_Hopper, CompiledMujocoEnv):
    """
    ## Description

    A two-dimensional one-legged robot of four body parts (torso, thigh, leg, foot) whose three hinges
    are driven to hop forward (right).

    ## Action Space

    `Box(-1, 1, (3,), float32)`: the torques of the thigh, leg and foot joints.

    ## Observation Space

    `Box(-inf, inf, (11,), float64)`: `qpos[1:]` (5: torso height and angle, three joint angles) then
    `clip(qvel, -10, 10)` (6). With `exclude_current_positions_from_observation=False`, `qpos[0]` too (12).

    ## Rewards

    `healthy_reward + forward_reward - ctrl_cost`: `healthy_reward` (1) on every healthy step,
    `forward_reward_weight * dx/dt` and `ctrl_cost_weight * sum(action**2)` (in the action's dtype).

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Terminates when unhealthy (with `terminate_when_unhealthy`): a value of `state_vector()[2:]` outside
    `healthy_state_range`, the height outside `healthy_z_range` or the angle outside
    `healthy_angle_range`. Truncated after 1000 steps.

    ## Arguments

    `xml_file="hopper.xml"`, `frame_skip=4`, `default_camera_config`, `forward_reward_weight=1.0`,
    `ctrl_cost_weight=1e-3`, `healthy_reward=1.0`, `terminate_when_unhealthy=True`,
    `healthy_state_range=(-100.0, 100.0)`, `healthy_z_range=(0.7, inf)`, `healthy_angle_range=(-0.2, 0.2)`,
    `reset_noise_scale=5e-3`, `exclude_current_positions_from_observation=True`, and `MujocoEnv`'s.
    `info`: `x_position`, `z_distance_from_origin`, `x_velocity`, `reward_forward`, `reward_ctrl`,
    `reward_survive` (reset: the first two).

    ## Version History

    * v5: minimum mujoco 2.3.3; more arguments; `z_distance_from_origin` info; `healthy_reward` given on
      healthy steps only (gymnasium 1.0). v4: mujoco bindings. v3: arguments. v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "hopper.xml",
        frame_skip: int = 4,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-3,
        healthy_reward: float = 1.0,
        terminate_when_unhealthy: bool = True,
        healthy_state_range: tuple[float, float] = (-100.0, 100.0),
        healthy_z_range: tuple[float, float] = (0.7, float("inf")),
        healthy_angle_range: tuple[float, float] = (-0.2, 0.2),
        reset_noise_scale: float = 5e-3,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        self.observation_structure = _planar.observation_structure(
            self.model, exclude_current_positions_from_observation
        )

    # gymnasium's public health and cost members, rewards and reset info, computed again from the live data (see _health)
    _get_rew = _health.walker_rewards
    _get_reset_info = _health.planar_reset_info
    healthy_reward = property(_health.healthy_reward)
    control_cost = _health.control_cost
    is_healthy = property(_health.hopper_is_healthy)


HopperVectorEnv = vector_env_class(HopperEnv)
