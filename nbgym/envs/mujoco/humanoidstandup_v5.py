"""HumanoidStandup-v5: make a 3D humanoid stand up from the floor, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from nbgym.envs.mujoco import _humanoid
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import CompiledMujocoEnv, Configure, record_property
from nbgym.envs.mujoco import _health

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 1, "distance": 4.0, "lookat": np.array((0.0, 0.0, 0.8925)), "elevation": -20.0}


class _HumanoidStandup:
    metadata = _humanoid.METADATA
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = _humanoid.STANDUP
    _step_info_keys = _humanoid.STANDUP_STEP_INFO
    _reset_info_keys = _humanoid.STANDUP_RESET_INFO
    _aux_columns = _humanoid.S_AUX_COLUMNS
    _has_tendon_infos = True
    # gymnasium's names for the shared contact-cost parameters.
    _impact_cost_weight = record_property("_contact_cost_weight")
    _impact_cost_range = record_property("_contact_cost_range")

    def _configure(self, args: SimpleNamespace) -> Configure:
        self._uph_cost_weight = args.uph_cost_weight
        return _humanoid.configure(
            args.ctrl_cost_weight,
            args.impact_cost_weight,
            args.impact_cost_range,
            args.reset_noise_scale,
            _humanoid.observation_flags(vars(args)),
        )


class HumanoidStandupEnv(_HumanoidStandup, CompiledMujocoEnv):
    """
    ## Description

    The humanoid of Humanoid-v5 starts lying on the ground; the goal is to make it stand up and keep it
    standing.

    ## Action Space

    `Box(-0.4, 0.4, (17,), float32)`: the torques of the hinge joints.

    ## Observation Space

    `Box(-inf, inf, (348,), float64)`: as Humanoid-v5's.

    ## Rewards

    `reward_linup - reward_quadctrl - reward_impact + 1`: the torso's height divided by the model's
    timestep (`uph_cost_weight` is kept as an attribute but, as in gymnasium, not applied),
    `ctrl_cost_weight * sum(ctrl**2)` and `impact_cost_weight * sum(cfrc_ext**2)` clipped to
    `impact_cost_range`.

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Never terminates; truncated after 1000 steps.

    ## Arguments

    `xml_file="humanoidstandup.xml"`, `frame_skip=5`, `default_camera_config`, `uph_cost_weight=1`,
    `ctrl_cost_weight=0.1`, `impact_cost_weight=0.5e-6`, `impact_cost_range=(-inf, 10.0)`,
    `reset_noise_scale=1e-2`, `exclude_current_positions_from_observation=True`, the four
    `include_*_in_observation=True`, and `MujocoEnv`'s. `info`: `x_position`, `y_position`,
    `z_distance_from_origin`, `tendon_length`, `tendon_velocity`, `reward_linup`, `reward_quadctrl`,
    `reward_impact` (reset: the first five).

    ## Version History

    * v5: minimum mujoco 2.3.3; contact forces in the observation again; more arguments and infos
      (gymnasium 1.0). v4, v3, v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "humanoidstandup.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        uph_cost_weight: float = 1,
        ctrl_cost_weight: float = 0.1,
        impact_cost_weight: float = 0.5e-6,
        impact_cost_range: tuple[float, float] = (-np.inf, 10.0),
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

    # gymnasium's reward and reset info, computed again from the live data (see _health)
    _get_rew = _health.standup_rewards
    _get_reset_info = _health.standup_reset_info


HumanoidStandupVectorEnv = vector_env_class(HumanoidStandupEnv)
