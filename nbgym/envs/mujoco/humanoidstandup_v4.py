"""HumanoidStandup-v4: make a humanoid lying on the ground stand up, as gymnasium's, on the compiled engine
(HumanoidStandup-v5's physics with v4's observation and infos)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from nbgym.envs.mujoco import _humanoid
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import CLIPPED_INT, CompiledMujocoEnv, Configure, InfoKey
from nbgym.envs.mujoco.humanoid_v4 import FULL_OBSERVATION
from nbgym.envs.mujoco.humanoidstandup_v5 import DEFAULT_CAMERA_CONFIG

XML_FILE, FRAME_SKIP = "humanoidstandup.xml", 5
CTRL_COST_WEIGHT, IMPACT_COST_WEIGHT, IMPACT_COST_RANGE, RESET_NOISE_SCALE = 0.1, 0.5e-6, (-np.inf, 10.0), 0.01
CONFIGURE = _humanoid.configure(
    CTRL_COST_WEIGHT,
    IMPACT_COST_WEIGHT,
    IMPACT_COST_RANGE,
    RESET_NOISE_SCALE,
    {"exclude_current_positions_from_observation": True, **FULL_OBSERVATION},
    version=4,
)


class _HumanoidStandup:
    metadata = _humanoid.METADATA
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = _humanoid.STANDUP
    _step_info_keys = (
        InfoKey("reward_linup", _humanoid.S_REWARD_LINUP),
        InfoKey("reward_quadctrl", _humanoid.S_REWARD_QUADCTRL),
        InfoKey("reward_impact", _humanoid.S_REWARD_IMPACT, CLIPPED_INT),
    )
    _reset_info_keys = ()
    _aux_columns = _humanoid.S_AUX_COLUMNS
    _has_tendon_infos = True  # the kernels write the tendons' columns, which v4's infos leave out
    _constant_arguments = {"xml_file": XML_FILE, "frame_skip": FRAME_SKIP}

    def _configure(self, args: SimpleNamespace) -> Configure:
        return CONFIGURE


class HumanoidStandupEnv(_HumanoidStandup, CompiledMujocoEnv):
    """
    ## Description

    HumanoidStandup-v5's robot (see `nbgym.envs.mujoco.humanoidstandup_v5`) as gymnasium's v4 has it.

    ## Action Space

    `Box(-0.4, 0.4, (17,), float32)`: the torques of the seventeen joints.

    ## Observation Space

    `Box(-inf, inf, (376,), float64)`: `qpos[2:]` (22), `qvel` (23), and of every body (the world's
    too) `cinert` (140), `cvel` (84), then `qfrc_actuator` (23) and `cfrc_ext` (84).

    ## Rewards

    `uph_cost - quad_ctrl_cost - quad_impact_cost + 1`: `qpos[2] / timestep`, `0.1 * sum(ctrl**2)` and
    `min(0.5e-6 * sum(cfrc_ext**2), 10)`.

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-0.01, 0.01)` noise.

    ## Episode End

    Never terminates; truncated after 1000 steps.

    ## Arguments

    `MujocoEnv`'s rendering arguments (the model is `humanoidstandup.xml`, `frame_skip` 5). `info`:
    `reward_linup`, `reward_quadctrl`, `reward_impact` (reset: none).

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): the world body and the free joint left out of the
      observation; arguments and infos. v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(self, **kwargs: Any) -> None:
        pass


HumanoidStandupVectorEnv = vector_env_class(HumanoidStandupEnv)
