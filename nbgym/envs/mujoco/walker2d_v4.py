"""Walker2d-v4: make a two-legged planar robot walk forward, as gymnasium's, on the compiled engine
(Walker2d-v5's physics with v4's options)."""

from __future__ import annotations

from typing import Any

from nbgym.envs.mujoco import _planar, walker2d_v5
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import CompiledMujocoEnv
from nbgym.envs.mujoco import _health

XML_FILE, FRAME_SKIP = "walker2d.xml", 4


class _Walker2d(walker2d_v5._Walker2d):
    _step_info_keys = _planar.V4_STEP_INFO_KEYS
    _reset_info_keys = ()
    _constant_arguments = {"xml_file": XML_FILE, "frame_skip": FRAME_SKIP}
    _healthy_reward_when_terminating = True


class Walker2dEnv(_Walker2d, CompiledMujocoEnv):
    """
    ## Description

    Walker2d-v5's robot (see `nbgym.envs.mujoco.walker2d_v5`) as gymnasium's v4 has it, on
    `walker2d.xml` (whose two feet have different frictions).

    ## Action Space

    `Box(-1, 1, (6,), float32)`: the torques of the right and left thigh, leg and foot joints.

    ## Observation Space

    `Box(-inf, inf, (17,), float64)`: `qpos[1:]` (8) then `clip(qvel, -10, 10)` (9); with
    `exclude_current_positions_from_observation=False`, `qpos[0]` too (18).

    ## Rewards

    `healthy_reward + forward_reward - ctrl_cost`, as for Hopper-v4 (`healthy_reward` on every step while
    `terminate_when_unhealthy`).

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Terminates when unhealthy (with `terminate_when_unhealthy`): the torso height outside
    `healthy_z_range` or its angle outside `healthy_angle_range`. Truncated after 1000 steps.

    ## Arguments

    `forward_reward_weight=1.0`, `ctrl_cost_weight=1e-3`, `healthy_reward=1.0`,
    `terminate_when_unhealthy=True`, `healthy_z_range=(0.8, 2.0)`, `healthy_angle_range=(-1.0, 1.0)`,
    `reset_noise_scale=5e-3`, `exclude_current_positions_from_observation=True`, and `MujocoEnv`'s
    rendering arguments (`frame_skip` 4). `info`: `x_position`, `x_velocity` (reset: none).

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): both feet with the same friction; more arguments
      and infos; `healthy_reward` only on healthy steps. v3: arguments. v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
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
        pass

    # gymnasium's public health and cost members, computed again from the live data (see _health)
    healthy_reward = property(_health.healthy_reward_v4)
    control_cost = _health.control_cost
    is_healthy = property(_health.walker_is_healthy)
    terminated = property(_health.terminated_v4)


Walker2dVectorEnv = vector_env_class(Walker2dEnv)
