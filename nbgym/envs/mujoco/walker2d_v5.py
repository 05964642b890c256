"""Walker2d-v5: make a two-legged planar robot walk forward, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.envs.mujoco import _planar
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import CompiledMujocoEnv
from nbgym.envs.mujoco import _health

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 2, "distance": 4.0, "lookat": np.array((0.0, 0.0, 1.15)), "elevation": -20.0}


class _Walker2d(_planar.PlanarWalker):
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = _planar.WALKER
    _step_info_keys = _planar.step_info_keys(_planar.SURVIVE_KINDS["Walker2d"])
    _reset_info_keys = _planar.RESET_INFO_KEYS


class Walker2dEnv(_Walker2d, CompiledMujocoEnv):
    """
    ## Description

    A two-dimensional two-legged robot (torso, two thighs, legs and feet) whose six hinges are driven
    to walk forward (right).

    ## Action Space

    `Box(-1, 1, (6,), float32)`: the torques of the right and left thigh, leg and foot joints.

    ## Observation Space

    `Box(-inf, inf, (17,), float64)`: `qpos[1:]` (8) then `clip(qvel, -10, 10)` (9); with
    `exclude_current_positions_from_observation=False`, `qpos[0]` too (18).

    ## Rewards

    `healthy_reward + forward_reward - ctrl_cost`, as for the Hopper.

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Terminates when unhealthy (with `terminate_when_unhealthy`): the torso height outside
    `healthy_z_range` or its angle outside `healthy_angle_range`. Truncated after 1000 steps.

    ## Arguments

    `xml_file="walker2d_v5.xml"`, `frame_skip=4`, `default_camera_config`, `forward_reward_weight=1.0`,
    `ctrl_cost_weight=1e-3`, `healthy_reward=1.0`, `terminate_when_unhealthy=True`,
    `healthy_z_range=(0.8, 2.0)`, `healthy_angle_range=(-1.0, 1.0)`, `reset_noise_scale=5e-3`,
    `exclude_current_positions_from_observation=True`, and `MujocoEnv`'s. `info`: `x_position`,
    `z_distance_from_origin`, `x_velocity`, `reward_forward`, `reward_ctrl`, `reward_survive`.

    ## Version History

    * v5: minimum mujoco 2.3.3; both feet with the same friction (`walker2d_v5.xml`); more arguments
      (gymnasium 1.0). v4: mujoco bindings. v3: arguments. v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "walker2d_v5.xml",
        frame_skip: int = 4,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-3,
        healthy_reward: float = 1.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (0.8, 2.0),
        healthy_angle_range: tuple[float, float] = (-1.0, 1.0),
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
    is_healthy = property(_health.walker_is_healthy)


Walker2dVectorEnv = vector_env_class(Walker2dEnv)
