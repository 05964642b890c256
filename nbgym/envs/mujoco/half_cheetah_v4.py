"""HalfCheetah-v4: make a 2D cheetah run forward, as gymnasium's, on the compiled engine (HalfCheetah-v5's
physics with v4's arguments and infos)."""

from __future__ import annotations

from typing import Any

from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco import half_cheetah_v5
from nbgym.envs.mujoco._compiled import ACTION, CompiledMujocoEnv, InfoKey
from nbgym.envs.mujoco.half_cheetah_v5 import (
    REWARD_CTRL,
    REWARD_FORWARD,
    X_POSITION,
    X_VELOCITY,
)
from nbgym.envs.mujoco import _health

XML_FILE, FRAME_SKIP = "half_cheetah.xml", 5


class _HalfCheetah(half_cheetah_v5._HalfCheetah):
    _step_info_keys = (
        InfoKey("x_position", X_POSITION),
        InfoKey("x_velocity", X_VELOCITY),
        InfoKey("reward_run", REWARD_FORWARD),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_ctrl_cost_weight"),
    )
    _reset_info_keys = ()
    _constant_arguments = {"xml_file": XML_FILE, "frame_skip": FRAME_SKIP}


class HalfCheetahEnv(_HalfCheetah, CompiledMujocoEnv):
    """
    ## Description

    HalfCheetah-v5's cheetah (see `nbgym.envs.mujoco.half_cheetah_v5`) as gymnasium's v4 has it.

    ## Action Space

    `Box(-1, 1, (6,), float32)`: the torques of the back and front thigh, shin and foot joints.

    ## Observation Space

    `Box(-inf, inf, (17,), float64)`: `qpos[1:]` (8) then `qvel` (9); with
    `exclude_current_positions_from_observation=False`, `qpos[0]` too (18).

    ## Rewards

    `forward_reward_weight * dx/dt - ctrl_cost_weight * sum(action**2)`.

    ## Starting State

    `init_qpos + uniform(-reset_noise_scale, reset_noise_scale)`, `init_qvel + reset_noise_scale * standard_normal`.

    ## Episode End

    Never terminates; truncated after 1000 steps.

    ## Arguments

    `forward_reward_weight=1.0`, `ctrl_cost_weight=0.1`, `reset_noise_scale=0.1`,
    `exclude_current_positions_from_observation=True`, and `MujocoEnv`'s rendering arguments (the model
    is `half_cheetah.xml`, `frame_skip` 5). `info`: `x_position`, `x_velocity`, `reward_run`,
    `reward_ctrl` (reset: none).

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): more arguments; `reward_forward` for `reward_run`.
      v3: `xml_file` and weights. v2: mujoco-py >= 1.50. v1: 1000 steps. v0: initial.
    """

    @declares_arguments
    def __init__(
        self,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 0.1,
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        pass

    # gymnasium's public health and cost members, computed again from the live data (see _health)
    control_cost = _health.control_cost


HalfCheetahVectorEnv = vector_env_class(HalfCheetahEnv)
