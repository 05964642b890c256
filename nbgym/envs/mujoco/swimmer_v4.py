"""Swimmer-v4: make a three-link swimmer move forward in a viscous fluid, as gymnasium's, on the compiled
engine (Swimmer-v5's physics with v4's arguments and infos)."""

from __future__ import annotations

from typing import Any

from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco import swimmer_v5
from nbgym.envs.mujoco._compiled import ACTION, CompiledMujocoEnv, InfoKey
from nbgym.envs.mujoco.swimmer_v5 import (
    DISTANCE,
    REWARD_CTRL,
    REWARD_FORWARD,
    X_POSITION,
    X_VELOCITY,
    Y_POSITION,
    Y_VELOCITY,
)
from nbgym.envs.mujoco import _health

XML_FILE, FRAME_SKIP = "swimmer.xml", 4


class _Swimmer(swimmer_v5._Swimmer):
    _step_info_keys = (
        InfoKey("reward_fwd", REWARD_FORWARD),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_ctrl_cost_weight"),
        InfoKey("x_position", X_POSITION),
        InfoKey("y_position", Y_POSITION),
        InfoKey("distance_from_origin", DISTANCE),
        InfoKey("x_velocity", X_VELOCITY),
        InfoKey("y_velocity", Y_VELOCITY),
        InfoKey("forward_reward", REWARD_FORWARD),
    )
    _reset_info_keys = ()
    _constant_arguments = {"xml_file": XML_FILE, "frame_skip": FRAME_SKIP}


class SwimmerEnv(_Swimmer, CompiledMujocoEnv):
    """
    ## Description

    Swimmer-v5's swimmer (see `nbgym.envs.mujoco.swimmer_v5`) as gymnasium's v4 has it.

    ## Action Space

    `Box(-1, 1, (2,), float32)`: the torques of the two rotors.

    ## Observation Space

    `Box(-inf, inf, (8,), float64)`: `qpos[2:]` (3) then `qvel` (5); with
    `exclude_current_positions_from_observation=False`, `qpos[:2]` too (10).

    ## Rewards

    `forward_reward_weight * dx/dt - ctrl_cost_weight * sum(action**2)`.

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Never terminates; truncated after 1000 steps.

    ## Arguments

    `forward_reward_weight=1.0`, `ctrl_cost_weight=1e-4`, `reset_noise_scale=0.1`,
    `exclude_current_positions_from_observation=True`, and `MujocoEnv`'s rendering arguments (the model
    is `swimmer.xml`, `frame_skip` 4). `info`: `reward_fwd`, `reward_ctrl`, `x_position`, `y_position`,
    `distance_from_origin`, `x_velocity`, `y_velocity`, `forward_reward` (reset: none).

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): more arguments; `reward_forward` for `reward_fwd`
      and `forward_reward`. v3: arguments. v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-4,
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        pass

    # gymnasium's public health and cost members, computed again from the live data (see _health)
    control_cost = _health.control_cost


SwimmerVectorEnv = vector_env_class(SwimmerEnv)
