"""Ant-v4: make a four-legged robot walk forward, as gymnasium's, on the compiled engine (Ant-v5's physics
with v4's options)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import ACTION, FLOAT, CompiledMujocoEnv, Configure, InfoKey, record_property
from nbgym.envs.mujoco.ant_v5 import (
    BODY_DISTANCE,
    BODY_X,
    BODY_Y,
    DEFAULT_CAMERA_CONFIG,
    PHYSICS,
    REWARD_CONTACT,
    REWARD_CTRL,
    REWARD_FORWARD,
    REWARD_SURVIVE,
    X_VELOCITY,
    Y_VELOCITY,
    configure,
)
from nbgym.envs.mujoco import _health

XML_FILE, FRAME_SKIP, MAIN_BODY, FORWARD_REWARD_WEIGHT = "ant.xml", 5, "torso", 1.0


def _step_info_keys(use_contact_forces: bool) -> tuple[InfoKey, ...]:
    """v4's step infos; with ``use_contact_forces``, ``reward_ctrl`` is minus the contact cost (as gymnasium's)."""
    reward_ctrl = (
        InfoKey("reward_ctrl", REWARD_CONTACT)
        if use_contact_forces
        else InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_ctrl_cost_weight")
    )
    return (
        InfoKey("reward_forward", REWARD_FORWARD),
        reward_ctrl,
        InfoKey("reward_survive", REWARD_SURVIVE, FLOAT),
        InfoKey("x_position", BODY_X),
        InfoKey("y_position", BODY_Y),
        InfoKey("distance_from_origin", BODY_DISTANCE),
        InfoKey("x_velocity", X_VELOCITY),
        InfoKey("y_velocity", Y_VELOCITY),
        InfoKey("forward_reward", REWARD_FORWARD),
    )


class _Ant:
    # gymnasium's v4 fixes render_fps, and MujocoEnv asserts that the model's dt gives it (an xml_file whose
    # timestep differs is refused with AssertionError).
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"], "render_fps": 20}
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = _step_info_keys(False)
    _reset_info_keys = ()
    _aux_columns = 12
    _constant_arguments = {"frame_skip": FRAME_SKIP}
    _use_contact_forces = record_property("_include_cfrc_ext_in_observation", fixed=True, name="_use_contact_forces")

    def _configure(self, args: SimpleNamespace) -> Configure:
        self._step_info_keys = _step_info_keys(args.use_contact_forces)
        return configure(
            FORWARD_REWARD_WEIGHT,
            args.ctrl_cost_weight,
            args.contact_cost_weight,
            args.healthy_reward,
            MAIN_BODY,
            args.terminate_when_unhealthy,
            args.healthy_z_range,
            args.contact_force_range,
            args.reset_noise_scale,
            args.exclude_current_positions_from_observation,
            args.use_contact_forces,
            version=4,
        )


class AntEnv(_Ant, CompiledMujocoEnv):
    """
    ## Description

    Ant-v5's robot (see `nbgym.envs.mujoco.ant_v5`) as gymnasium's v4 has it.

    ## Action Space

    `Box(-1, 1, (8,), float32)`: the torques of the eight hip and ankle joints.

    ## Observation Space

    `Box(-inf, inf, (27,), float64)`: `qpos[2:]` (13) then `qvel` (14); with
    `exclude_current_positions_from_observation=False`, `qpos[:2]` too (+2); with `use_contact_forces`,
    `clip(cfrc_ext, *contact_force_range)` of every body, the world's too (+84).

    ## Rewards

    `healthy_reward + forward_reward - ctrl_cost` (`- contact_cost` with `use_contact_forces`):
    `healthy_reward` on every step while `terminate_when_unhealthy` (the terminating step too), otherwise
    on healthy steps; the torso's velocity along x; `ctrl_cost_weight * sum(action**2)`;
    `contact_cost_weight * sum(clip(cfrc_ext)**2)`.

    ## Starting State

    `init_qpos + uniform(-reset_noise_scale, reset_noise_scale)`, `init_qvel + reset_noise_scale * standard_normal`.

    ## Episode End

    Terminates when unhealthy (with `terminate_when_unhealthy`): a non-finite state or the torso's height
    outside `healthy_z_range`. Truncated after 1000 steps.

    ## Arguments

    `xml_file="ant.xml"`, `ctrl_cost_weight=0.5`, `use_contact_forces=False`, `contact_cost_weight=5e-4`,
    `healthy_reward=1.0`, `terminate_when_unhealthy=True`, `healthy_z_range=(0.2, 1.0)`,
    `contact_force_range=(-1.0, 1.0)`, `reset_noise_scale=0.1`,
    `exclude_current_positions_from_observation=True`, and `MujocoEnv`'s rendering arguments
    (`frame_skip` 5). `info`: `reward_forward`, `reward_ctrl` (minus the contact cost with
    `use_contact_forces`, as gymnasium's), `reward_survive`, `x_position`, `y_position`,
    `distance_from_origin` (of the torso's frame), `x_velocity`, `y_velocity`, `forward_reward` (reset:
    none).

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): the world body's contact forces left out, contact
      cost always counted, `healthy_reward` only on healthy steps; arguments and infos. v3: arguments.
      v2, v1, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = XML_FILE,
        ctrl_cost_weight: float = 0.5,
        use_contact_forces: bool = False,
        contact_cost_weight: float = 5e-4,
        healthy_reward: float = 1.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (0.2, 1.0),
        contact_force_range: tuple[float, float] = (-1.0, 1.0),
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        pass

    # gymnasium's public health and cost members, computed again from the live data (see _health)
    healthy_reward = property(_health.healthy_reward_v4)
    control_cost = _health.control_cost
    contact_forces = property(_health.ant_contact_forces)
    contact_cost = property(_health.ant_contact_cost)
    is_healthy = property(_health.ant_is_healthy)
    terminated = property(_health.terminated_v4)


AntVectorEnv = vector_env_class(AntEnv)
