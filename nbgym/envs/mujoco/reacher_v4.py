"""Reacher-v4: move a two-jointed arm's fingertip to a random target, as gymnasium's, on the compiled engine
(Reacher-v5's physics with v4's observation and reward)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import ACTION, CompiledMujocoEnv, Configure, InfoKey
from nbgym.envs.mujoco.reacher_v5 import DEFAULT_CAMERA_CONFIG, PHYSICS, REWARD_CTRL, REWARD_DIST, configure

XML_FILE, FRAME_SKIP = "reacher.xml", 2


class _Reacher:
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = (
        InfoKey("reward_dist", REWARD_DIST),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_reward_control_weight"),
    )
    _reset_info_keys = ()
    _aux_columns = 4
    _constant_arguments = {"xml_file": XML_FILE, "frame_skip": FRAME_SKIP}

    def _configure(self, args: SimpleNamespace) -> Configure:
        return configure(1.0, 1.0, version=4)


class ReacherEnv(_Reacher, CompiledMujocoEnv):
    """
    ## Description

    Reacher-v5's arm and target (see `nbgym.envs.mujoco.reacher_v5`) as gymnasium's v4 has them.

    ## Action Space

    `Box(-1, 1, (2,), float32)`: the torques of the two hinges.

    ## Observation Space

    `Box(-inf, inf, (11,), float64)`: the cosines then sines of the two arm angles, the target's position
    (`qpos[2:]`), the arm's angular velocities and the fingertip's position minus the target's (x, y, z).

    ## Rewards

    `reward_dist + reward_ctrl`: minus the fingertip-target distance before the step, and minus
    `sum(action**2)` (in the action's dtype).

    ## Starting State

    The arm at `init_qpos + uniform(-0.1, 0.1)`, the target uniform within radius 0.2, velocities
    `init_qvel + uniform(-0.005, 0.005)` (the target's 0).

    ## Episode End

    Never terminates; truncated after 50 steps.

    ## Arguments

    `MujocoEnv`'s rendering arguments (the model is `reacher.xml`, `frame_skip` 2). `info`: `reward_dist`,
    `reward_ctrl`.

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): the difference's z dropped from the observation; the
      distance after the step; weights and arguments. v2, v0: older.
    """

    @declares_arguments
    def __init__(self, **kwargs: Any) -> None:
        pass


ReacherVectorEnv = vector_env_class(ReacherEnv)
